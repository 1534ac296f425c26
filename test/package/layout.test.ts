import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/check-layout.ts', import.meta.url));
const roots: string[] = [];

/** `npm run check:layout` over a tree of `files` (path to text): its exit code and what it said. */
async function checkLayout(files: Record<string, string>): Promise<{ code: number; said: string }> {
  const root = mkdtempSync(join(tmpdir(), 'idgov-layout-'));
  roots.push(root);
  mkdirSync(join(root, 'schemas'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      script,
      '--with-types',
      '--root',
      root,
    ]);
    return { code: 0, said: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, said: failed.stdout + failed.stderr };
  }
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('check:layout keeps the sync engine and its backends apart', () => {
  it('passes a tree where both meet only at the store contract', async () => {
    const result = await checkLayout({
      'src/sync/store.ts': 'export interface SyncStore {}\n',
      'src/sync/run/work.ts': "import type { SyncStore } from '../store.ts';\nexport type A = SyncStore;\n",
      'src/sync/sqlite/store.ts':
        "import type { SyncStore } from '../store.ts';\nexport type B = SyncStore;\n",
    });
    expect(result).toMatchObject({ code: 0 });
  });

  it.each([
    ['src/sync/run/work.ts', '../sqlite/store.ts', 'src/sync/run/ may not import src/sync/sqlite/'],
    ['src/sync/run/work.ts', '../postgres/store.ts', 'src/sync/run/ may not import src/sync/postgres/'],
    [
      'src/sync/sqlite/store.ts',
      '../postgres/store.ts',
      'src/sync/sqlite/ may not import src/sync/postgres/',
    ],
    [
      'src/sync/postgres/store.ts',
      '../sqlite/store.ts',
      'src/sync/postgres/ may not import src/sync/sqlite/',
    ],
    ['src/sync/sqlite/store.ts', '../run/work.ts', 'src/sync/sqlite/ may not import src/sync/run/'],
    ['src/core/paging/page.ts', '../../sync/store.ts', 'src/core/ may not import src/sync/'],
  ])('fails when %s imports %s (a type-only import too)', async (file, specifier, message) => {
    const target = join(dirname(file), specifier);
    const result = await checkLayout({
      [target]: 'export type T = number;\n',
      [file]: `import type { T } from '${specifier}';\nexport type U = T;\n`,
    });
    expect(result.code).toBe(1);
    expect(result.said).toContain(message);
  });
});

describe('check:layout keeps the SQLite store thread lean', () => {
  const thread = 'src/sync/sqlite/thread.ts';

  it('passes a thread that takes only types from the wire model', async () => {
    const result = await checkLayout({
      'schemas/task.ts': 'export const TaskSchema = {};\nexport type Task = {};\n',
      'src/sync/change-kinds.ts':
        "import type { Task } from '../../schemas/task.ts';\nexport type K = Task;\n",
      [thread]: "import type { K } from '../change-kinds.ts';\nexport type T = K;\n",
    });
    expect(result).toMatchObject({ code: 0 });
  });

  it('fails when the thread loads a schema at run time, through another module, naming the way', async () => {
    const result = await checkLayout({
      'schemas/task.ts': 'export const TaskSchema = {};\n',
      'src/sync/changes.ts':
        "import { TaskSchema } from '../../schemas/task.ts';\nexport const parse = TaskSchema;\n",
      [thread]: "import { parse } from '../changes.ts';\nexport const t = parse;\n",
    });
    expect(result.code).toBe(1);
    expect(result.said).toContain(
      `${thread} loads schemas/task.ts at run time (through src/sync/changes.ts): it may not load schemas/`,
    );
  });
});
