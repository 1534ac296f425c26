/**
 * On a Node older than the floor, the CLI and the SQLite stores say which Node they need (not a raw
 * `node:sqlite` error, nor a thread retried for half a minute). Run under this machine's older Node,
 * from bundles of the source; skipped where no older Node can be had.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_FLOOR } from '../../src/internal/node-floor.ts';

const older = ['/usr/bin/node', '/bin/node', '/usr/local/bin/node'].find((path) => {
  if (!existsSync(path)) return false;
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().slice(1);
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split('.').map(Number);
  return major < floorMajor || (major === floorMajor && minor < floorMinor);
});

const dir = mkdtempSync(join(tmpdir(), 'idgov-node-floor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(name: string, entry: string): Promise<string> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return outfile;
}

describe.skipIf(!older)(`on a Node older than ${NODE_FLOOR}`, () => {
  it('idgov says which Node it needs and exits 2', async () => {
    const cli = await bundle('idgov', new URL('../../src/cli/idgov.ts', import.meta.url).pathname);
    const ran = spawnSync(older as string, [cli, '--help'], { encoding: 'utf8' });
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(
      new RegExp(`^idgov: idgov needs Node ${NODE_FLOOR} or later .*, and this is Node v?20`),
    );
  });

  it('the SQLite sync store and the SQLite outbox refuse at once, naming the Node needed and the one found', async () => {
    const script = join(dir, 'stores.ts');
    const src = new URL('../../src/', import.meta.url).pathname;
    writeFileSync(
      script,
      `import { SqliteSyncStore } from '${src}sync/sqlite/store.ts';
       import { SqliteOutboxStore } from '${src}outbox/sqlite-store.ts';
       for (const make of [() => new SqliteSyncStore({ path: '${dir}/copy.db' }), () => new SqliteOutboxStore({ path: '${dir}/outbox.db' })]) {
         try { make(); console.log('opened'); } catch (error) { console.log(error.name + ': ' + error.message); }
       }`,
    );
    const ran = spawnSync(older as string, [await bundle('stores', script)], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const lines = ran.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^ConfigurationError: @idgov\/sdk: SqliteSyncStore needs Node 22\.13\.0 or later .*, and this is Node 20/,
    );
    expect(lines[1]).toMatch(
      /^ConfigurationError: @idgov\/sdk: The SQLite outbox needs Node 22\.13\.0 or later/,
    );
  });
});

it('names the floor on the 23 line, and Bun or Deno as what they are', async () => {
  const { nodeFloorProblem } = await import('../../src/internal/node-floor.ts');
  const real = Object.getOwnPropertyDescriptor(process, 'versions') as PropertyDescriptor;
  const as = (values: Record<string, string | undefined>) => {
    Object.defineProperty(process, 'versions', { value: { ...real.value, ...values }, configurable: true });
    return nodeFloorProblem('idgov');
  };
  try {
    expect(as({ node: '22.13.0' })).toBeUndefined();
    expect(as({ node: '23.4.0' })).toBeUndefined();
    expect(as({ node: '24.1.0' })).toBeUndefined();
    expect(as({ node: '23.3.0' })).toMatch(/on the 23 line, 23\.4 or later\), and this is Node 23\.3\.0/);
    expect(as({ node: '22.12.0' })).toMatch(/needs Node 22\.13\.0 or later/);
    expect(as({ node: '22.13.0', bun: '1.2.0' })).toMatch(/this is Bun 1\.2\.0: run it with Node/);
    expect(as({ node: '24.2.0', deno: '2.3.1' })).toMatch(/this is Deno 2\.3\.1/);
  } finally {
    Object.defineProperty(process, 'versions', real);
  }
  expect(process.versions).toBe(real.value);
});
