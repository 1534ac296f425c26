/**
 * The task sync into PostgreSQL, against the fake tenant on loopback and a throw-away server:
 * several workers on one copy, a worker that dies holding a window, the server dropping its
 * connections mid-run, and bad setups. The multi-process crash test is sync-postgres-crash.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TaskView } from '../../schemas/task-search.ts';
import { ConfigurationError, IdGovClient } from '../../src/index.ts';
import type { SyncWindow, TaskRow } from '../../src/sync/index.ts';
import { TaskSync, type TaskSyncOptions } from '../../src/sync/index.ts';
import { PostgresSyncStore, postgresSyncSchema } from '../../src/sync/postgres/store.ts';
import { taskRow } from '../../src/sync/run/rows.ts';
import { FakeTenant, type WireTask } from '../../src/testing/index.ts';
import { appOf } from '../../src/testing/task-filter.ts';
import { caught } from '../helpers/caught.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { whileRowsHeld } from '../helpers/rows-held.ts';
import { copiedTasksPg, differences, expectedTasks } from '../helpers/task-copy.ts';

const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL sync tests: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

let n = 0;
const newPrefix = () => `${pg?.schema}.copy_${++n}`;
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const one of opened.splice(0)) await one.close();
});

async function sql<R>(text: string, values: unknown[] = []): Promise<R[]> {
  const { default: Pg } = await import('pg');
  const client = new Pg.Client({ connectionString: pg?.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}

function worker(
  tenant: FakeTenant,
  prefix: string,
  options: Partial<TaskSyncOptions> & { connectionString?: string } = {},
) {
  const { connectionString, ...syncOptions } = options;
  const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' });
  const store = new PostgresSyncStore({
    connectionString: connectionString ?? pg?.url,
    table: prefix,
    logLevel: 'error',
  });
  const sync = new TaskSync({ client, store, concurrency: 4, logLevel: 'error', ...syncOptions });
  opened.push(sync);
  return { sync, store };
}

describe.skipIf(!pg)('a PostgreSQL copy synced by several workers', () => {
  const tenant = new FakeTenant({ history: 3_000, seed: 31 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('equals the tenant, pages about what one worker would, and each run is begun and ended once', async () => {
    const alone = newPrefix();
    const one = worker(tenant, alone);
    await one.store.migrate();
    let before = tenant.stats.searchPages;
    await one.sync.run();
    const onePages = tenant.stats.searchPages - before;

    const prefix = newPrefix();
    const workers = [worker(tenant, prefix), worker(tenant, prefix), worker(tenant, prefix)];
    await Promise.all(workers.map((w) => w.store.migrate())); // at once: the advisory lock orders them
    before = tenant.stats.searchPages;
    const summaries = await Promise.all(workers.map((w) => w.sync.run()));
    expect(summaries.every((s) => s.complete && s.kind === 'full')).toBe(true);
    expect(summaries.filter((s) => !s.resumed)).toHaveLength(1); // one began the run, the others joined it
    // The work was shared (a worker slow to start, on a loaded machine, may find none left).
    expect(summaries.filter((s) => s.pages > 0).length).toBeGreaterThanOrEqual(2);
    expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(tenant.tasks))).toEqual([]);
    expect(tenant.stats.searchPages - before).toBeLessThanOrEqual(Math.ceil(onePages * 1.2) + 3);

    tenant.closeTasks(60);
    tenant.createTasks(150);
    tenant.deleteTasks(20, (task) => task.state === 'TASK_STATE_OPEN');
    tenant.commentOnTasks(25, (task) => task.state === 'TASK_STATE_CLOSED'); // seen as tasks acted on
    const next = await Promise.all(workers.slice(0, 2).map((w) => w.sync.run()));
    expect(next.every((s) => s.complete && s.kind === 'incremental')).toBe(true);
    expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(tenant.tasks))).toEqual([]);
    const runs = await sql<{ kind: string; finished: boolean }>(
      `SELECT kind, finished_at IS NOT NULL AS finished FROM ${prefix}_sync_runs ORDER BY id`,
    );
    expect(runs).toEqual([
      { kind: 'full', finished: true },
      { kind: 'incremental', finished: true },
    ]);
    expect(await sql(`SELECT 1 FROM ${prefix}_sync_windows`)).toEqual([]);
  });

  it('workers whose pages expand the same objects wait for one another: no commit deadlocks', async () => {
    // Every page names the same users and apps. With the feed off (its counter orders the commits
    // that change the copy), commits that wrote them in the order of their pages deadlocked.
    const prefix = newPrefix();
    // A deadlock retried is said at info.
    const said: string[] = [];
    const say = (m: string) => void said.push(m);
    const logger = { debug() {}, info: say, warn: say, error: say };
    const workers = [1, 2, 3, 4].map(() => {
      const store = new PostgresSyncStore({
        connectionString: pg?.url,
        table: prefix,
        logLevel: 'error',
        changeFeed: 'after-first-copy',
      });
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const sync = new TaskSync({ client, store, concurrency: 8, expand: ['*'], logger, logLevel: 'info' });
      opened.push(sync);
      return { sync, store };
    });
    await workers[0]?.store.migrate();
    for (let run = 0; run < 2; run++) {
      if (run === 1) tenant.closeTasks(300);
      const summaries = await Promise.all(workers.map((w) => w.sync.run()));
      expect(summaries.every((s) => s.complete)).toBe(true);
    }
    expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(tenant.tasks))).toEqual([]);
    expect(said.filter((m) => /deadlock/.test(m))).toEqual([]);
  });

  it('a worker gone while holding a window: another resumes it from its checkpoint once its lease ran out', async () => {
    const prefix = newPrefix();
    const slow = new FakeTenant({ history: 1_500, seed: 32, latencyMs: 20 });
    const { close: closeSlow } = await slow.listen();
    try {
      const gone = worker(slow, prefix, { leaseMs: 1_000, concurrency: 2 });
      await gone.store.migrate();
      // Gone as a crashed process is: it never gives its leases up (a clean stop does, below).
      gone.store.endLeases = async () => {};
      const stop = new AbortController();
      let pages = 0;
      gone.sync.hooks.on('progress', () => {
        if (++pages === 5) stop.abort();
      });
      expect((await gone.sync.run({ signal: stop.signal })).complete).toBe(false);
      const held = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM ${prefix}_sync_windows WHERE lease_token IS NOT NULL AND pages > 0`,
      );
      expect(Number(held[0]?.n)).toBeGreaterThan(0);

      const next = worker(slow, prefix, { leaseMs: 1_000 });
      const claimed: Array<{ from?: string; window?: number }> = [];
      next.sync.hooks.on('window', (event) => {
        if (event.event === 'claimed') claimed.push(event);
      });
      const started = Date.now();
      const summary = await next.sync.run();
      expect(summary).toMatchObject({ complete: true, resumed: true });
      expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(slow.tasks))).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(500); // it waited for the leases to run out

      // The first worker, back late with a page of a window it no longer holds, writes nothing.
      const run = { id: 1, kind: 'full', startedAt: 0, resumed: true } as const;
      const late = await gone.store.commitPage(
        run,
        { id: 1, from: 0, to: 1, cursor: 0, queryFrom: 0, queryTo: 1, token: undefined },
        {
          tasks: [],
          expanded: [],
          cursor: 0,
          moved: false,
          queryFrom: 0,
          queryTo: 1,
          token: undefined,
          exhausted: false,
          syncedAt: 0,
        },
        { holder: 'the worker that was gone', ms: 1_000 },
      );
      expect(late.lost).toBe(true);
    } finally {
      await closeSlow();
    }
  });

  it("a refresh committed after its lease ran out, while another worker's claim of the task is under way, writes nothing: the new holder's fetch lands", async () => {
    const prefix = newPrefix();
    const small = new FakeTenant({ tasks: 30, seed: 5 });
    const { close: closeSmall } = await small.listen();
    const { default: Pg } = await import('pg');
    const other = new Pg.Client({ connectionString: pg?.url });
    try {
      const { sync, store } = worker(small, prefix, { concurrency: 2 });
      await store.migrate();
      await sync.run();
      const run = await store.beginRun('incremental', Date.now(), []);
      const a = { holder: 'worker-a/0', ms: 300 };
      const [id] = await store.claimOpenTasks(run, a, 1);
      const i = small.tasks.findIndex((task) => task.id === id);
      const view = (task: unknown) => taskRow({ task } as TaskView, () => {}) as TaskRow;
      const stale = view(small.tasks[i]);
      small.tasks[i] = { ...(small.tasks[i] as WireTask), state: 'TASK_STATE_CLOSED' };
      await new Promise((resolve) => setTimeout(resolve, 500)); // a's lease ran out
      // b's claim, its UPDATE made and not yet committed, when a's late commit arrives.
      await other.connect();
      await other.query('BEGIN');
      await other.query(
        `UPDATE ${prefix}_tasks SET lease_token = 'worker-b/0', leased_at = 0, lease_until = 9e15 WHERE id = $1`,
        [id],
      );
      const late = store.commitRefresh(
        run,
        { tasks: [stale], vanished: [], syncedAt: Date.now() - 5_000 },
        a,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query('COMMIT');
      expect(await late).toEqual({ new: 0, changed: 0, deleted: 0 });
      const b = { holder: 'worker-b/0', ms: 60_000 };
      const fresh = await store.commitRefresh(
        run,
        { tasks: [view(small.tasks[i])], vanished: [], syncedAt: Date.now() },
        b,
      );
      expect(fresh).toEqual({ new: 0, changed: 1, deleted: 0 });
      expect(await sql(`SELECT state, lease_token FROM ${prefix}_tasks WHERE id = $1`, [id])).toEqual([
        { state: 'TASK_STATE_CLOSED', lease_token: null },
      ]);
    } finally {
      await other.end();
      await closeSmall();
    }
  });

  it('a worker stopped by its signal gives its leases up: the next one takes its windows at once', async () => {
    const prefix = newPrefix();
    const tenant = new FakeTenant({ history: 1_500, seed: 33, latencyMs: 20 });
    const { close } = await tenant.listen();
    try {
      const first = worker(tenant, prefix, { concurrency: 2 }); // the default lease: 15 s
      await first.store.migrate();
      const stop = new AbortController();
      let pages = 0;
      first.sync.hooks.on('progress', () => {
        if (++pages === 5) stop.abort();
      });
      expect((await first.sync.run({ signal: stop.signal })).complete).toBe(false);
      const held = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM ${prefix}_sync_windows WHERE lease_token IS NOT NULL`,
      );
      expect(Number(held[0]?.n)).toBe(0);
      const started = Date.now();
      expect(await worker(tenant, prefix).sync.run()).toMatchObject({ complete: true, resumed: true });
      expect(Date.now() - started).toBeLessThan(10_000); // not a lease of 15 s waited out
      expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(tenant.tasks))).toEqual(
        [],
      );
    } finally {
      await close();
    }
  });

  it('survives the server ending its connections mid-run (a restart): nothing lost, nothing doubled', async () => {
    const prefix = newPrefix();
    const app = `idgov_sync_${crypto.randomUUID().slice(0, 8)}`;
    const url = new URL(pg?.url ?? '');
    url.searchParams.set('application_name', app);
    const slow = new FakeTenant({ history: 2_000, seed: 33, latencyMs: 5 });
    const { close: closeSlow } = await slow.listen();
    try {
      const w = worker(slow, prefix, { connectionString: url.href });
      await w.store.migrate();
      let terminated = 0;
      let pages = 0;
      w.sync.hooks.on('progress', () => {
        if (++pages % 4 === 0 && terminated < 3) {
          terminated += 1;
          void sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
            app,
          ]);
        }
      });
      const summary = await w.sync.run();
      expect(terminated).toBe(3);
      expect(summary.complete).toBe(true);
      expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(slow.tasks))).toEqual([]);
      const counts = await sql<{ n: string; ids: string }>(
        `SELECT count(*) AS n, count(DISTINCT id) AS ids FROM ${prefix}_tasks`,
      );
      expect(Number(counts[0]?.n)).toBe(slow.tasks.length);
    } finally {
      await closeSlow();
    }
  });

  it('keeps each task as sent (a NUL character as U+FFFD), its columns typed, and expanded objects by type and ID', async () => {
    const prefix = newPrefix();
    const small = new FakeTenant({ history: 300, seed: 34 });
    const { close: closeSmall } = await small.listen();
    try {
      const odd = small.tasks[7] as Record<string, unknown>;
      odd.displayName = 'a\u0000b "quoted" \\u0000 not a NUL';
      const w = worker(small, prefix, { expand: ['app_id'] });
      await w.store.migrate();
      await w.sync.run();
      const [row] = await sql<{ task: Record<string, unknown>; created_at: Date; state: string }>(
        `SELECT task, created_at, state FROM ${prefix}_tasks WHERE id = $1`,
        [odd.id],
      );
      expect(row?.task.displayName).toBe('a\ufffdb "quoted" \\u0000 not a NUL');
      expect(row?.created_at).toBeInstanceOf(Date);
      expect(row?.created_at.toISOString()).toBe(new Date(odd.createdAt as string).toISOString());
      expect(row?.state).toBe(odd.state);
      const read = new Map<string, string | undefined>();
      for await (const { task } of w.store.tasks({ includeDeleted: true }))
        read.set(task.id as string, task.displayName ?? undefined);
      expect(read.size).toBe(small.tasks.length);
      expect(read.get(odd.id as string)).toBe('a\ufffdb "quoted" \\u0000 not a NUL');
      const apps = new Set(small.tasks.map(appOf).filter(Boolean));
      const expanded = await sql<{ type: string; id: string; object: { id: string } }>(
        `SELECT type, id, object FROM ${prefix}_expanded`,
      );
      expect(new Set(expanded.map((e) => e.id))).toEqual(apps);
      expect(expanded.every((e) => e.type.endsWith('app.v1.App') && e.object.id === e.id)).toBe(true);
    } finally {
      await closeSmall();
    }
  });

  // Task a held by another transaction. A commit that returns every task, locking by ID, waits
  // there holding nothing else, while a heartbeat locking the lease's rows as they lie would take
  // the others. Task a vanished: a heartbeat (or the lease's end) started first waits at a, then
  // the commit, which would write the returned tasks and queue behind it to mark a vanished.
  type Statement = 'commit' | 'renewLeases' | 'endLeases';
  it.each<{ first: Statement; second: Statement; vanished: string[] }>([
    { first: 'commit', second: 'renewLeases', vanished: [] },
    { first: 'renewLeases', second: 'commit', vanished: ['a'] },
    { first: 'endLeases', second: 'commit', vanished: ['a'] },
  ])(
    "a refresh's commit and its lease's heartbeat ($first, then $second; vanished $vanished) wait for each other, not deadlock",
    async ({ first, second, vanished }) => {
      const { default: Pg } = await import('pg');
      const pool = new Pg.Pool({ connectionString: pg?.url, max: 4 });
      const prefix = newPrefix();
      const store = new PostgresSyncStore({ pool, table: prefix });
      try {
        await store.migrate();
        await store.open({ baseUrl: 'https://acme.example.com', filter: '{}' });
        const task = (id: string, v: number): TaskRow => ({
          id,
          state: 'TASK_STATE_OPEN',
          createdAt: undefined,
          updatedAt: undefined,
          deletedAt: undefined,
          json: JSON.stringify({ id, state: 'TASK_STATE_OPEN', v }),
        });
        // Open tasks written out of ID order, so that their rows lie out of it too.
        const ids = 'zmvkedjqlrpgthauoiswcbxynf'.split('');
        const full = await store.beginRun('full', Date.now(), [{ from: 0, to: 2_000 }]);
        const writer = { holder: 'W', ms: 60_000 };
        const window = (await store.claimWindow(full, writer)) as SyncWindow;
        const page = { expanded: [], cursor: 1, moved: true, queryFrom: 0, queryTo: 2_000, token: undefined };
        await store.commitPage(
          full,
          window,
          { ...page, tasks: ids.map((id) => task(id, 0)), exhausted: true, syncedAt: Date.now() },
          writer,
        );
        expect((await store.finishRun(full, Date.now())).finished).toBe(true);
        const run = await store.beginRun('incremental', Date.now(), []);
        const lease = { holder: 'H', ms: 60_000 };
        const claimed = await store.claimOpenTasks(run, lease, 100);
        expect(claimed).toHaveLength(ids.length);
        const statements = {
          commit: () =>
            store.commitRefresh(
              run,
              {
                tasks: claimed.filter((id) => !vanished.includes(id)).map((id) => task(id, 1)),
                vanished,
                syncedAt: Date.now(),
              },
              lease,
            ),
          renewLeases: () => store.renewLeases([lease.holder], lease.ms),
          endLeases: () => store.endLeases([lease.holder]),
        };
        const ended = await whileRowsHeld(pool, `SELECT 1 FROM ${prefix}_tasks WHERE id = 'a' FOR UPDATE`, [
          statements[first],
          statements[second],
        ]);
        expect(ended).toEqual(['fulfilled', 'fulfilled']);
      } finally {
        await store.close();
        await pool.end();
      }
    },
  );

  it('the refresh of open tasks writes the expanded objects its answers inline', async () => {
    const prefix = newPrefix();
    const small = new FakeTenant({ history: 300, seed: 35 });
    const { close: closeSmall } = await small.listen();
    try {
      const w = worker(small, prefix, { expand: ['approver_ids'] });
      await w.store.migrate();
      await w.sync.run();
      // Reassigned without an action: only the refresh of open tasks sees it.
      const old = Date.now() - 86_400_000;
      const at = small.tasks.findIndex(
        (task) =>
          task.state === 'TASK_STATE_OPEN' && !task.deletedAt && Date.parse(task.createdAt ?? '') < old,
      );
      small.tasks[at] = { ...(small.tasks[at] as WireTask), approverIds: ['user-brand-new-approver'] };
      expect(await w.sync.run()).toMatchObject({ kind: 'incremental', tasksChanged: 1 });
      const rows = await sql<{ type: string; object: { id: string } }>(
        `SELECT type, object FROM ${prefix}_expanded WHERE id = 'user-brand-new-approver'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.type).toMatch(/user\.v1\.User$/);
      expect(rows[0]?.object.id).toBe('user-brand-new-approver');
    } finally {
      await closeSmall();
    }
  });

  it('migrate() changes nothing once the tables are there, so a worker starting while others write never waits on them', async () => {
    const { default: Pg } = await import('pg');
    const pool = new Pg.Pool({ connectionString: pg?.url });
    const statements: string[] = [];
    const spy = {
      query: (text: string, values?: unknown[]) => {
        statements.push(text);
        return pool.query(text, values);
      },
    };
    const prefix = newPrefix();
    const store = new PostgresSyncStore({ pool: spy, table: prefix });
    await store.migrate();
    expect(statements.some((text) => text.includes('CREATE TABLE'))).toBe(true);
    statements.length = 0;
    await Promise.all([store.migrate(), store.migrate()]);
    expect(statements).toHaveLength(2);
    expect(statements.every((text) => !text.includes('CREATE'))).toBe(true);
    await pool.end();
  });

  it("compresses the JSON columns with lz4 where the server has it (pglz was a commit's largest cost)", async () => {
    const { default: Pg } = await import('pg');
    const client = new Pg.Client({ connectionString: pg?.url });
    await client.connect();
    try {
      const lz4 = await client.query("SET default_toast_compression = 'lz4'").then(
        () => true,
        () => false,
      );
      const prefix = newPrefix();
      const store = new PostgresSyncStore({ connectionString: pg?.url, table: prefix });
      await store.migrate();
      await store.close();
      const { rows } = await client.query<{ name: string; compression: string }>(
        `SELECT attrelid::regclass::text || '.' || attname AS name, attcompression AS compression
         FROM pg_attribute WHERE (attrelid, attname) IN
           (($1::regclass, 'task'), ($2::regclass, 'object'), ($3::regclass, 'task')) ORDER BY 1`,
        [`${prefix}_tasks`, `${prefix}_expanded`, `${prefix}_changes`],
      );
      expect(rows).toHaveLength(3);
      expect(rows.map((row) => row.compression)).toEqual(Array(3).fill(lz4 ? 'l' : ''));
    } finally {
      await client.end();
    }
  });

  it('refuses a copy of another filter naming both; a missing table says to migrate; a bad prefix says what a name may hold', async () => {
    const prefix = newPrefix();
    const first = worker(tenant, prefix, { filter: { applicationIds: ['app-1'] } });
    const missing = await caught(first.sync.run());
    expect(missing).toBeInstanceOf(ConfigurationError);
    expect(missing.message).toMatch(
      /no table .*copy_\d+_tasks.*check its name \(idgov's --table\), or, for a new store, run store\.migrate\(\) once, or the SQL of postgresSyncSchema\(\)/,
    );
    await first.store.migrate();
    await first.sync.run();
    const other = worker(tenant, prefix, { filter: { applicationIds: ['app-2'] } });
    const refused = await caught(other.sync.run());
    expect(refused).toBeInstanceOf(ConfigurationError);
    expect(refused.message).toContain('with the filter {"applicationIds":["app-1"]}');
    expect(refused.message).toContain('with the filter {"applicationIds":["app-2"]}');
    for (const bad of ['Tasks', 'x; DROP TABLE y', 'a'.repeat(50)]) {
      expect(() => new PostgresSyncStore({ connectionString: pg?.url, table: bad })).toThrow(
        ConfigurationError,
      );
    }
    expect(postgresSyncSchema('reports.user')).toContain('CREATE TABLE IF NOT EXISTS "reports"."user_tasks"');
  });

  it('a copy made by schema version 1 is refused until migrated, and not marked a later version; migrate() brings it to the current one, with its change feed', async () => {
    const prefix = newPrefix();
    const first = worker(tenant, prefix);
    await first.store.migrate();
    await first.sync.run();
    // What version 1 made: windows and runs without acted_after_ms, and its version in the metadata.
    const toVersion1 = async () => {
      await sql(`ALTER TABLE ${prefix}_sync_windows DROP COLUMN acted_after_ms`);
      await sql(`ALTER TABLE ${prefix}_sync_runs DROP COLUMN acted_after_ms`);
      await sql(`ALTER TABLE ${prefix}_sync_runs DROP COLUMN unordered`);
      await sql(`DROP TABLE ${prefix}_changes`);
      await sql(`UPDATE ${prefix}_sync_meta SET value = '1' WHERE key = 'schema_version'`);
    };
    await toVersion1();
    const old = worker(tenant, prefix);
    const refused = await caught(old.sync.run());
    expect(refused).toBeInstanceOf(ConfigurationError);
    expect(refused.message).toMatch(
      /an earlier release, without .*_sync_windows"?\.acted_after_ms and .*_sync_runs"?\.acted_after_ms and .*_sync_runs"?\.unordered and the table .*_changes"?: run store\.migrate\(\) once, or the SQL of postgresSyncSchema\(\)/,
    );
    // A store used without opening the copy names the missing column's fix too.
    const run = { id: 1, kind: 'incremental', startedAt: 0, resumed: true } as const;
    const unopened = await caught(old.store.claimWindow(run, { holder: 'h', ms: 1_000 }));
    expect(unopened).toBeInstanceOf(ConfigurationError);
    expect(unopened.message).toMatch(
      /lacks a column this SDK uses .*store\.migrate\(\) adds what is missing/,
    );
    // Tables of version 1 that never held a copy stay so: nothing claims a later version for them.
    await sql(`DELETE FROM ${prefix}_sync_meta`);
    expect(await caught(old.sync.run())).toBeInstanceOf(ConfigurationError);
    expect(await sql(`SELECT key FROM ${prefix}_sync_meta`)).toEqual([]);
    await sql(
      `INSERT INTO ${prefix}_sync_meta SELECT * FROM (VALUES ('schema_version', '1')) AS v(key, value)`,
    );
    await sql(`INSERT INTO ${prefix}_sync_meta VALUES ('base_url', $1), ('filter', '{}')`, [tenant.baseUrl]);
    await old.store.migrate();
    expect(await sql(`SELECT value FROM ${prefix}_sync_meta WHERE key = 'schema_version'`)).toEqual([
      { value: '4' },
    ]);
    tenant.commentOnTasks(5, (task) => task.state === 'TASK_STATE_CLOSED');
    expect((await old.sync.run()).kind).toBe('incremental');
    expect(differences(await copiedTasksPg(pg?.url ?? '', prefix), expectedTasks(tenant.tasks))).toEqual([]);
  });

  it('a window of tasks acted on that ends refused (actedCut) leaves its run counted as not having seen them', async () => {
    const prefix = newPrefix();
    const { store } = worker(tenant, prefix);
    await store.migrate();
    await store.open({ baseUrl: tenant.baseUrl, filter: '{}' });
    const run = await store.beginRun('incremental', 5_000, [
      { from: 4_000, to: 5_000 },
      { from: 0, to: 4_000, actedAfter: 3_000 },
    ]);
    const lease = { holder: 'h', ms: 60_000 };
    const claimed = [await store.claimWindow(run, lease), await store.claimWindow(run, lease)];
    const acted = claimed.find((w) => w?.actedAfter === 3_000);
    expect(acted).toBeDefined();
    expect(await sql(`SELECT acted_after_ms FROM ${prefix}_sync_runs`)).toEqual([{ acted_after_ms: '3000' }]);
    const page = {
      tasks: [],
      expanded: [],
      cursor: 0,
      moved: false,
      queryFrom: 0,
      queryTo: 4_000,
      token: undefined,
    };
    if (!acted) return;
    const ended = await store.commitPage(
      run,
      acted,
      { ...page, exhausted: true, actedCut: true, syncedAt: 5_000 },
      lease,
    );
    expect(ended).toMatchObject({ done: true, lost: false });
    expect(await sql(`SELECT acted_after_ms FROM ${prefix}_sync_runs`)).toEqual([{ acted_after_ms: null }]);
  });
});
