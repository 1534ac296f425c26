/**
 * The task sync as a user runs it: `idgov sync` processes of the packed build against the fake
 * tenant in its own process, timed from the outside (wall time, and CPU time of every thread from
 * bench/cpu-report.ts). Also the bare copy loop (bench/bare-copy.ts), the CPU reference.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Served } from './paging.ts';

/** What one process took. */
export interface ProcessRun {
  readonly seconds: number;
  /** User and system CPU time of all its threads. */
  readonly cpuSeconds: number;
  /** Its stderr, the CPU line left out. */
  readonly stderr: string;
}

const CLI = new URL('../dist/idgov.js', import.meta.url).pathname;
const BARE = new URL('./bare-copy.ts', import.meta.url).pathname;
const REPORT = new URL('./cpu-report.ts', import.meta.url).href;

/** Runs `script` with `args` as its own process against `served`, failing on a non-zero exit. */
export function runProcess(served: Served, script: string, args: readonly string[]): Promise<ProcessRun> {
  const env = {
    ...process.env,
    IDGOV_BASE_URL: served.baseUrl,
    IDGOV_CLIENT_ID: served.clientId,
    IDGOV_CLIENT_SECRET: served.clientSecret,
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REPORT, script, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => {
      const seconds = (performance.now() - started) / 1000;
      const line = /cpu-usage (\{.*\})/.exec(stderr);
      if (code !== 0 || !line?.[1]) {
        reject(new Error(`${script} ${args.join(' ')} exited ${code}: ${stderr}`));
        return;
      }
      const cpu = JSON.parse(line[1]) as { user: number; system: number };
      resolve({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, stderr: stderr.replace(line[0], '') });
    });
  });
}

/**
 * `idgov sync --db` into a new SQLite file in `dir`, with `concurrency` cursors and `extra` options;
 * its pages from its summary.
 */
export async function sqliteSync(
  served: Served,
  dir: string,
  concurrency: number,
  extra: readonly string[] = [],
): Promise<ProcessRun & { readonly pages: number }> {
  const file = join(dir, `${crypto.randomUUID()}.db`);
  const run = await runProcess(served, CLI, [
    'sync',
    '--db',
    file,
    '--concurrency',
    String(concurrency),
    ...extra,
  ]);
  const pages = Number(/full run: (\d+) pages/.exec(run.stderr)?.[1]);
  if (!Number.isFinite(pages)) throw new Error(`idgov sync said no page count: ${run.stderr}`);
  return { ...run, pages };
}

/**
 * `workers` processes of `idgov sync --postgres` on one new copy, 4 cursors each, with `extra`
 * options: the seconds until all are done.
 */
export async function postgresSync(
  served: Served,
  url: string,
  prefix: string,
  workers: number,
  extra: readonly string[] = [],
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, () =>
      runProcess(served, CLI, ['sync', '--postgres', url, '--table', prefix, '--concurrency', '4', ...extra]),
    ),
  );
  return (performance.now() - started) / 1000;
}

/**
 * The bare copy loop into a new SQLite file in `dir`, and the tasks it copied (a search lists no
 * deleted task, unless it writes the copy's `tables`).
 */
export async function bareCopy(
  served: Served,
  dir: string,
  tables: 'bare' | 'copy-tables' = 'bare',
): Promise<ProcessRun & { readonly tasks: number }> {
  const run = await runProcess(served, BARE, [join(dir, `${crypto.randomUUID()}.db`), tables]);
  const tasks = Number(/copied (\d+)/.exec(run.stderr)?.[1]);
  if (!(tasks > 0)) throw new Error(`the bare copy said no task count: ${run.stderr}`);
  return { ...run, tasks };
}
