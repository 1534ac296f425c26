/**
 * Leases with heartbeats, for the task sync: a service slower than the lease makes no two holders
 * (on SQLite, and with two workers on PostgreSQL), and a worker SIGKILLed mid-page with the default
 * options holds the survivor back by at most a lease (15 s): it ends within 20 s of a clean run.
 * Each copy's change feed holds each change once, and folds to the copy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdGovClient, type Logger } from '../../src/index.ts';
import { type SyncStore, TaskSync } from '../../src/sync/index.ts';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { copyAndFeed, feedProblems } from '../helpers/change-feed.ts';
import { type Child, startChild, tenantEnv } from '../helpers/child.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { copiedTasks, copiedTasksPg, differences, expectedTasks } from '../helpers/task-copy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-sync-leases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL lease tests: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

/** What is wrong with the change feed of the copy `store` reads, beside the copy (the store is closed). */
async function feedOf(store: Parameters<typeof copyAndFeed>[0]): Promise<string[]> {
  const { copy, feed } = await copyAndFeed(store);
  return feedProblems(copy, feed);
}

/** A worker of `tenant` into `store`, keeping its warnings and the windows it lost. */
function worker(tenant: FakeTenant, store: SyncStore, leaseMs: number) {
  const warnings: string[] = [];
  const drop = () => {};
  const logger: Logger = { error: drop, warn: (m) => warnings.push(m), info: drop, debug: drop };
  const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'off' });
  const sync = new TaskSync({ client, store, concurrency: 2, leaseMs, logger });
  const lost: number[] = [];
  sync.hooks.on('window', (event) => {
    if (event.event === 'lost' && event.window !== undefined) lost.push(event.window);
  });
  return { sync, warnings, lost };
}

describe('a service slower than the lease (pages of 1.5 s, a lease of 1 s)', () => {
  const tenant = new FakeTenant({ tasks: 450, seed: 71, latencyMs: 1_500 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  // On the caller's thread too (what `idgov sync --concurrency 1` uses): its heartbeat shares the thread with the copy.
  for (const thread of [true, false])
    it(`SQLite${thread ? '' : " on the caller's thread"}: the run ends, no window changes hands, each page is fetched once`, async () => {
      const path = join(dir, `slow-${thread}.db`);
      const one = worker(tenant, new SqliteSyncStore({ path, thread }), 1_000);
      const before = tenant.stats.searchPages;
      const summary = await one.sync.run();
      await one.sync.close();
      expect(summary.complete).toBe(true);
      expect(one.lost).toEqual([]);
      expect(one.warnings.filter((w) => /stopped its work/.test(w))).toEqual([]);
      // Every page fetched was committed once: the run's pages, and its search for the first task;
      // besides, at most one a window asked for ahead and cut short when the window ended.
      const served = tenant.stats.searchPages - before;
      expect(served).toBeGreaterThanOrEqual(summary.pages + 1);
      expect(served).toBeLessThanOrEqual(summary.pages + 1 + summary.windows);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      expect(await feedOf(new SqliteSyncStore({ path, readOnly: true }))).toEqual([]);
    }, 60_000);

  it.skipIf(!pg)(
    'PostgreSQL, two workers: the run ends, no window changes hands, each page is fetched once',
    async () => {
      const table = `${pg?.schema}.slow`;
      const store = () => new PostgresSyncStore({ connectionString: pg?.url, table, logLevel: 'off' });
      const first = store();
      await first.migrate();
      const workers = [worker(tenant, first, 1_000), worker(tenant, store(), 1_000)];
      const before = tenant.stats.searchPages;
      const summaries = await Promise.all(workers.map((w) => w.sync.run()));
      for (const w of workers) await w.sync.close();
      expect(summaries.every((s) => s.complete)).toBe(true);
      expect(workers.flatMap((w) => w.lost)).toEqual([]);
      expect(workers.flatMap((w) => w.warnings).filter((w) => /stopped its work/.test(w))).toEqual([]);
      // Each worker searched for the first task (one began the run, the other joined it or began it first).
      const pages = summaries.reduce((sum, s) => sum + s.pages, 0);
      expect(tenant.stats.searchPages - before).toBeLessThanOrEqual(pages + 2);
      expect(differences(await copiedTasksPg(pg?.url ?? '', table), expectedTasks(tenant.tasks))).toEqual([]);
      expect(await feedOf(store())).toEqual([]);
    },
    60_000,
  );
});

/**
 * `idgov sync --postgres` into `table` with the default options, in a child process, on a machine
 * whose clock is `clockOffMs` off (ahead when positive).
 */
function startWorker(tenant: FakeTenant, table: string, clockOffMs = 0): Child {
  const clockOff = fileURLToPath(new URL('../fixtures/clock-off.ts', import.meta.url));
  return startChild('src/cli/idgov.ts', ['sync', '--postgres', pg?.url ?? '', '--table', table], {
    ...tenantEnv(tenant, 'warn'),
    ...(clockOffMs ? { NODE_OPTIONS: `--import ${clockOff}`, CLOCK_OFF_MS: String(clockOffMs) } : {}),
  });
}

/**
 * Runs `workers` to their ends: how long the last took, in ms. One still running `limitMs` after
 * `started` is killed, and the test fails with what it printed (a hang is a finding, not a timeout).
 */
async function timed(workers: Child[], started: number, limitMs: number): Promise<number> {
  for (const w of workers) {
    const timer = setTimeout(() => w.child.kill('SIGKILL'), Math.max(0, started + limitMs - Date.now()));
    const result = await w.exited;
    clearTimeout(timer);
    expect(result.signal, `still running after ${limitMs} ms:\n${result.stderr}`).toBe(null);
    expect(result.code, result.stderr).toBe(0);
  }
  return Date.now() - started;
}

/**
 * Resolves once `worker` (named `<host> pid <pid>` in its leases) holds a window of the copy at
 * `table`; fails, with what it printed, if it exits first.
 */
async function holdsWindow(table: string, worker: Child): Promise<void> {
  const { default: Pg } = await import('pg');
  const db = new Pg.Client({ connectionString: pg?.url });
  await db.connect();
  let exited: { stderr: string } | undefined;
  void worker.exited.then((result) => {
    exited = result;
  });
  try {
    for (;;) {
      const { rows } = await db
        .query(`SELECT 1 FROM ${table}_sync_windows WHERE strpos(lease_token, $1) > 0 LIMIT 1`, [
          ` pid ${worker.child.pid} #`,
        ])
        .catch(() => ({ rows: [] }));
      if (rows.length > 0) return;
      if (exited) throw new Error(`the worker exited before it held a window:\n${exited.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await db.end();
  }
}

/** What a worker printed to stderr, once it exited. */
const stderrOf = async (worker: Child) => (await worker.exited).stderr;

describe.skipIf(!pg)('a PostgreSQL sync worker SIGKILLed mid-page, default options', () => {
  const tenant = new FakeTenant({ history: 3_000, seed: 72, latencyMs: 40 });
  let close: () => Promise<void>;
  let cleanMs = 0;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    const started = Date.now();
    cleanMs = await timed(
      [startWorker(tenant, `${pg?.schema}.clean`), startWorker(tenant, `${pg?.schema}.clean`)],
      started,
      60_000,
    );
  }, 120_000);
  afterAll(() => close());

  it('seeds 1 to 3: each survivor ends within 20 s of a clean run, says whom it waited for, and each copy equals the tenant', async () => {
    // Seed 2's survivor runs on a machine whose clock is a minute behind the database's: the
    // lease it waits for runs out in the 15 s the database's clock says, not 75.
    // One seed after another, each on a copy of its own: the survivor's time is compared with a
    // clean run's on a machine no busier than it was then.
    const said: boolean[] = [];
    for (const seed of [1, 2, 3]) {
      await (async () => {
        const table = `${pg?.schema}.killed_${seed}`;
        const random = new SeededRandom(seed);
        // The victim first, so that it surely holds a window when it dies (started side by side, on a
        // busy machine the survivor could take every window before the victim began). The survivor
        // starts while the victim works, and the victim is killed a random moment later, a page in flight.
        const victim = startWorker(tenant, table);
        await holdsWindow(table, victim);
        const started = Date.now();
        const survivor = startWorker(tenant, table, seed === 2 ? -60_000 : 0);
        await new Promise((resolve) => setTimeout(resolve, random.next() * 400));
        victim.child.kill('SIGKILL');
        expect((await victim.exited).signal).toBe('SIGKILL');
        const took = await timed([survivor], started, cleanMs + 30_000);
        expect(took, `seed ${seed}`).toBeLessThanOrEqual(cleanMs + 20_000);
        // Waiting is said, naming the dead worker: the log line and the progress line.
        const stderr = await stderrOf(survivor);
        const countdown = new RegExp(
          `sync: waiting for a lease held by \\S+ pid ${victim.child.pid} #\\S+ \\(runs out in (\\d+)s unless renewed\\)`,
        ).exec(stderr);
        said.push(
          new RegExp(`waiting for work held by \\S+ pid ${victim.child.pid} #`).test(stderr) &&
            Number(countdown?.[1]) <= 15,
        );
        expect(differences(await copiedTasksPg(pg?.url ?? '', table), expectedTasks(tenant.tasks))).toEqual(
          [],
        );
        expect(
          await feedOf(new PostgresSyncStore({ connectionString: pg?.url, table, logLevel: 'off' })),
        ).toEqual([]);
      })();
    }
    // A victim killed holding a window leaves it to the survivor, which waits for its lease.
    expect(said).toEqual([true, true, true]);
  }, 150_000);
});
