import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('emits small declarations for code that uses the SDK: types are named, not expanded', async () => {
  const out = mkdtempSync(join(tmpdir(), 'idgov-dts-'));
  try {
    await promisify(execFile)(
      join(root, 'node_modules/.bin/tsc'),
      ['-p', join(root, 'test/fixtures/declaration-consumer'), '--outDir', out, '--rootDir', root],
      { cwd: root },
    );
    const emitted = readFileSync(join(out, 'test/fixtures/declaration-consumer/consumer.d.ts'), 'utf8');
    expect(emitted).toContain('import("@idgov/sdk").TaskView');
    expect(emitted).toContain('import("@idgov/sdk").App |');
    // A task's type is named, not spelt out variant by variant.
    expect(emitted).toContain('firstTaskType(): Promise<import("@idgov/sdk").TaskType | null | undefined>');
    expect(emitted.length).toBeLessThan(1_000);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000);

it('reports a mistaken task type filter as the mistake, never naming internals', async () => {
  const result = await promisify(execFile)(
    join(root, 'node_modules/.bin/tsc'),
    ['-p', join(root, 'test/fixtures/type-errors')],
    { cwd: root },
  ).then(
    () => ({ stdout: '' }),
    (error: { stdout: string }) => error,
  );
  const lines = result.stdout.split('\n');
  expect(lines.find((l) => l.includes('mistakes.ts(6'))).toContain(
    "Object literal may only specify known properties, and 'grnt' does not exist in type 'TaskTypeFilter'.",
  );
  expect(result.stdout).toContain(
    `Type '{}' is not assignable to type '"a task type filter holds exactly one variant"'.`,
  );
  expect(result.stdout).not.toMatch(/unlistedVariant|\$kind/);
  // A misspelt request field names the request's type and the fix, in a line, not its forty-odd fields.
  const typo = lines.find((l) => l.includes('mistakes.ts(8')) ?? '';
  expect(typo).toContain(
    "'pagesize' does not exist in type 'TaskSearchRequest'. Did you mean to write 'pageSize'?",
  );
  expect(typo.length).toBeLessThan(250);
}, 60_000);

it.skipIf(!existsSync(join(root, 'dist/index.d.ts')))(
  "publishes no @internal member: a component's hooks offer on, never the SDK's own emit and wants",
  () => {
    const declarations = readdirSync(join(root, 'dist'))
      .filter((name) => name.endsWith('.d.ts'))
      .map((name) => readFileSync(join(root, 'dist', name), 'utf8'))
      .join('\n');
    const hooks = /declare class Hooks<Events> \{[\s\S]*?\n\}/.exec(declarations)?.[0] ?? '';
    expect(hooks).toContain('on<Name extends keyof Events>');
    expect(hooks).not.toMatch(/\bemit</);
    expect(hooks).not.toMatch(/\bwants\(/);
  },
);
