/**
 * The task sync over the fake tenant (its own process, a realistic history: bursts, mostly recent).
 * Where the service is the limit, as it is for users (each search answered after 200 ms):
 * `idgov sync` with 16 cursors beside 1, a burst paged from both ends, 4 `idgov sync --postgres`
 * processes beside one, and the CPU a task costs beside a bare copy loop's. Where this machine is the limit (50 ms a page, 100,000
 * tasks): the same ratios in-process, the heap's peak, and the share of the time in the store. The
 * PostgreSQL rows need a server: IDGOV_TEST_PG_URL, or an installed PostgreSQL for
 * scripts/pg-test-server.sh; without one they are left out, saying so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { IdGovClient } from '@idgov/sdk';
import { type SyncStore, TaskSync } from '@idgov/sdk/sync';
import { SqliteSyncStore } from '@idgov/sdk/sync/sqlite';
import { NO_POSTGRES, postgresForTests } from '../test/helpers/postgres.ts';
import { type Served, start } from './paging.ts';
import { compared, interleaved, type Result, SMALL } from './support.ts';
import { bareCopy, postgresSync, sqliteSync } from './sync-processes.ts';

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

/** Where this machine is the limit: 50 ms a page, 100,000 tasks, in-process. */
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
      const alone = await postgresSync(served, pg.url, `${pg.schema}.bench_one`, 1);
      const four = await postgresSync(served, pg.url, `${pg.schema}.bench_four`, 4);
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

const BOUND_TASKS = SMALL ? 2_000 : 20_000;
const BOUND_LATENCY_MS = SMALL ? 20 : 200;
const BURST = SMALL ? 400 : 4_000;

/**
 * A burst of tasks created at one instant (beside a tenth as many spread over 90 days), synced by 8
 * cursors where the service is the limit, beside the time its pages take one after another (which
 * tokens alone allow): under 1 when its two ends are paged at once.
 */
async function burstSync(dir: string): Promise<Result> {
  const spread = String(BURST / 2);
  const served = await start('../dist/bin.js', ['--tasks', spread, '--latency', String(BOUND_LATENCY_MS)]);
  try {
    const admin = `Basic ${btoa(`${served.clientId}:${served.clientSecret}`)}`;
    const made = await fetch(`${served.baseUrl}/_admin/tasks/create?count=${BURST}`, {
      method: 'POST',
      headers: { authorization: admin },
    });
    if (!made.ok) throw new Error(`the fake tenant made no burst: ${made.status}`);
    const eight = await sqliteSync(served, dir, 8);
    return compared(
      `sync: a burst of ${BURST.toLocaleString('en')} tasks at one instant (and ${spread} others), 8 cursors, ${BOUND_LATENCY_MS} ms a page, beside its pages one after another`,
      { subject: eight.seconds, reference: ((BURST / 100) * BOUND_LATENCY_MS) / 1000 },
      's',
      '(informative)',
      () => true,
    );
  } finally {
    served.child.kill();
  }
}

/** Where the service is the limit: 200 ms a page, 20,000 tasks, `idgov sync` processes timed from outside. */
export async function serviceBoundSyncBenchmarks(): Promise<Result[]> {
  const history = ['--history', String(BOUND_TASKS)];
  const served = await start('../dist/bin.js', [...history, '--latency', String(BOUND_LATENCY_MS)]);
  const dir = mkdtempSync(join(tmpdir(), 'idgov-bench-bound-'));
  const size = `${BOUND_TASKS.toLocaleString('en')} tasks at ${BOUND_LATENCY_MS} ms a page`;
  const results: Result[] = [];
  try {
    const one = await sqliteSync(served, dir, 1);
    const sixteen = await sqliteSync(served, dir, 16);
    results.push(
      compared(
        `sync: idgov sync --concurrency 16 beside 1 (new SQLite copies), ${size}`,
        { subject: 60 / sixteen.seconds, reference: 60 / one.seconds },
        'runs/min',
        '>= 12x',
        (ratio) => ratio >= 12,
      ),
      compared(
        'sync: pages fetched, 16 cursors beside 1',
        { subject: sixteen.pages, reference: one.pages },
        'pages',
        '<= 1.15x',
        (ratio) => ratio <= 1.15,
      ),
      await burstSync(dir),
    );
    const pg = await postgresForTests();
    if (!pg) console.log(`sync: PostgreSQL rows left out, ${NO_POSTGRES}`);
    else {
      try {
        const alone = await postgresSync(served, pg.url, `${pg.schema}.bound_one`, 1);
        const four = await postgresSync(served, pg.url, `${pg.schema}.bound_four`, 4);
        results.push(
          compared(
            `sync: 4 idgov sync --postgres processes beside 1 (4 cursors each), ${size}`,
            { subject: 60 / four, reference: 60 / alone },
            'runs/min',
            '>= 3x',
            (ratio) => ratio >= 3,
          ),
        );
      } finally {
        await pg.stop();
      }
    }
  } finally {
    served.child.kill();
  }
  // CPU a task does not wait on the service: measured served at once, in interleaved pairs.
  const quick = await start('../dist/bin.js', [...history, '--latency', '0']);
  const bareLoop = (tables?: 'copy-tables') => async () => {
    const bare = await bareCopy(quick, dir, tables);
    return bare.tasks / bare.cpuSeconds;
  };
  try {
    const cpu = await interleaved(
      SMALL ? 1 : 3,
      async () => BOUND_TASKS / (await sqliteSync(quick, dir, 1)).cpuSeconds,
      bareLoop(),
    );
    results.push(
      compared(
        `sync: tasks a CPU second (all threads), idgov sync --concurrency 1 beside a bare copy loop, ${BOUND_TASKS.toLocaleString('en')} tasks`,
        cpu,
        'tasks/CPU s',
        '>= 0.75',
        (ratio) => ratio >= 0.75,
      ),
    );
    // What the copy's storage alone costs: the same loop writing the copy's tables and feed.
    const storage = await interleaved(SMALL ? 1 : 3, bareLoop('copy-tables'), bareLoop());
    results.push(
      compared(
        `sync: the same bare loop writing the copy's tables and feed (synchronous = FULL), beside the bare loop`,
        storage,
        'tasks/CPU s',
        '(reference)',
        () => true,
      ),
    );
  } finally {
    quick.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
