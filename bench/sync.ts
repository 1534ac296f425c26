/**
 * The task sync over the fake tenant (its own process, a realistic history: bursts, mostly recent),
 * each page answered after 50 ms: into SQLite with 16 cursors beside 1, the heap's peak, and the
 * share of the time spent in the store; then 4 `idgov sync --postgres` processes beside one. The
 * PostgreSQL row needs a server: IDGOV_TEST_PG_URL, or an installed PostgreSQL for
 * scripts/pg-test-server.sh; without one it is left out, saying so.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { IdGovClient } from '@idgov/sdk';
import { type SyncStore, TaskSync } from '@idgov/sdk/sync';
import { SqliteSyncStore } from '@idgov/sdk/sync/sqlite';
import { NO_POSTGRES, postgresForTests } from '../test/helpers/postgres.ts';
import { type Served, start } from './paging.ts';
import { compared, type Result, SMALL } from './support.ts';

const TASKS = SMALL ? 3_000 : 100_000;
const LATENCY_MS = SMALL ? 10 : 50;
const MiB = 1024 * 1024;

/**
 * `store` with the time its calls hold the event loop added up: all of a SQLite store's work, which
 * `node:sqlite` does synchronously, and none of the time its promise waits behind other work.
 */
function timedStore(store: SyncStore): { store: SyncStore; ms: () => number } {
  let ms = 0;
  const timed = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        try {
          return value.apply(target, args);
        } finally {
          ms += performance.now() - started;
        }
      };
    },
  });
  return { store: timed, ms: () => ms };
}

/** One full run into a new SQLite file: tasks a second, the heap's peak, and the store's share of the time. */
async function sqliteRun(served: Served, dir: string, concurrency: number) {
  const client = new IdGovClient({ baseUrl: served.baseUrl, credentials: served });
  const { store, ms } = timedStore(new SqliteSyncStore({ path: join(dir, `${crypto.randomUUID()}.db`) }));
  const sync = new TaskSync({ client, store, concurrency });
  (globalThis as { gc?: () => void }).gc?.();
  // The live heap: what is left after each full collection (garbage not yet collected is no growth).
  let peak = process.memoryUsage().heapUsed;
  const collections = new PerformanceObserver((list) => {
    if (
      list
        .getEntries()
        .some(
          (entry) =>
            (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
        )
    ) {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  });
  collections.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  const summary = await sync.run();
  const elapsed = performance.now() - started;
  collections.disconnect();
  await sync.close();
  if (summary.tasksNew !== TASKS) throw new Error(`sync: ${summary.tasksNew} tasks copied of ${TASKS}`);
  return { perSecond: TASKS / (elapsed / 1000), peakMiB: peak / MiB, storeShare: ms() / elapsed };
}

/** `workers` processes of `idgov sync --postgres` on one new copy, 4 cursors each: the seconds until all are done. */
async function postgresRun(served: Served, url: string, prefix: string, workers: number): Promise<number> {
  const cli = new URL('../dist/idgov.js', import.meta.url).pathname;
  const env = {
    ...process.env,
    IDGOV_BASE_URL: served.baseUrl,
    IDGOV_CLIENT_ID: served.clientId,
    IDGOV_CLIENT_SECRET: served.clientSecret,
  };
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve, reject) => {
          const args = ['sync', '--postgres', url, '--table', prefix, '--concurrency', '4'];
          const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr?.on('data', (chunk) => {
            stderr += chunk;
          });
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`idgov sync: ${stderr}`))));
        }),
    ),
  );
  return (performance.now() - started) / 1000;
}

export async function syncBenchmarks(): Promise<Result[]> {
  const served = await start('../dist/bin.js', ['--history', String(TASKS), '--latency', String(LATENCY_MS)]);
  const dir = mkdtempSync(join(tmpdir(), 'idgov-bench-sync-'));
  const results: Result[] = [];
  const size = `${TASKS.toLocaleString('en')} tasks at ${LATENCY_MS} ms a page`;
  try {
    const one = await sqliteRun(served, dir, 1);
    const sixteen = await sqliteRun(served, dir, 16);
    results.push(
      compared(
        `sync: SQLite, 16 cursors beside 1, ${size}`,
        { subject: sixteen.perSecond, reference: one.perSecond },
        'tasks/s',
        '>= 12x',
        (ratio) => ratio >= 12,
      ),
      {
        name: 'sync: live heap at its peak (after full collections), 16 cursors',
        value: sixteen.peakMiB,
        unit: 'MiB',
        ratio: sixteen.peakMiB,
        goal: '<= 64 MiB',
        met: sixteen.peakMiB <= 64,
      },
      {
        name: 'sync: share of the time in the SQLite store, 16 cursors',
        value: sixteen.storeShare * 100,
        unit: '%',
        ratio: sixteen.storeShare,
        goal: 'reported; well under half: never the bottleneck',
        met: sixteen.storeShare < 0.5,
      },
    );
    const pg = await postgresForTests();
    if (!pg) {
      console.log(`sync: PostgreSQL rows left out, ${NO_POSTGRES}`);
      return results;
    }
    try {
      const alone = await postgresRun(served, pg.url, `${pg.schema}.bench_one`, 1);
      const four = await postgresRun(served, pg.url, `${pg.schema}.bench_four`, 4);
      results.push(
        compared(
          `sync: PostgreSQL, 4 worker processes beside 1 (4 cursors each), ${size}`,
          { subject: TASKS / four, reference: TASKS / alone },
          'tasks/s',
          '>= 3x',
          (ratio) => ratio >= 3,
        ),
      );
    } finally {
      await pg.stop();
    }
  } finally {
    served.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
