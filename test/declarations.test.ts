import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

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
    expect(emitted.length).toBeLessThan(1_000);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 60_000);
