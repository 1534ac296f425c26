import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { VERSION } from '../../src/index.ts';

it('sends the version package.json declares in its User-Agent', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(VERSION).toBe(pkg.version);
});

it('points every export and bin target at dist/, the only code the tarball ships', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    files: string[];
    exports: unknown;
    bin: Record<string, string>;
  };
  const targets = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : Object.values(value as Record<string, unknown>).flatMap(targets);
  const all = [...targets(pkg.exports), ...Object.values(pkg.bin)];
  expect(all.length).toBeGreaterThan(15);
  for (const target of all) expect(target).toMatch(/^\.\/(dist\/|package\.json$)/);
  // Besides the code, documents only: the README, the guides it links to, the changelog, the licence.
  expect(pkg.files.filter((f) => !/^(README|CHANGELOG|LICENSE)/.test(f))).toEqual(['dist', 'guides']);
});
