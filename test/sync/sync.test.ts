/**
 * The task sync against the fake tenant on loopback, into a real SQLite file: the copy equals the
 * tenant after a full run and after incremental runs, whatever the tenant did meanwhile; a stopped
 * run resumes; bad setups are refused with what to do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  ConfigurationError,
  IdGovClient,
  ResponseValidationError,
  StoreError,
  TaskState,
} from '../../src/index.ts';
import { type SyncProgress, TaskSync, type TaskSyncOptions } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeData, FakeTenant, type WireTask } from '../../src/testing/index.ts';
import { caught } from '../helpers/caught.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dbPath = () => join(dir, `${crypto.randomUUID()}.db`);

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const one of opened.splice(0)) await one.close();
});

function syncOf(
  tenant: FakeTenant,
  path: string,
  options: {
    concurrency?: number;
    onProgress?: (p: SyncProgress) => void;
    expand?: TaskSyncOptions['expand'];
  } = {},
) {
  const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' });
  const sync = new TaskSync({
    client,
    store: new SqliteSyncStore({ path }),
    concurrency: options.concurrency ?? 4,
    expand: options.expand,
    logLevel: 'error',
    hooks: options.onProgress ? { progress: options.onProgress } : undefined,
  });
  opened.push(sync);
  return sync;
}

describe('a full run', () => {
  const tenant = new FakeTenant({ history: 3_000, seed: 11 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('copies every task, closed and deleted ones too, in windows split where the tasks are', async () => {
    const path = dbPath();
    const windows: string[] = [];
    const progress: SyncProgress[] = [];
    const sync = syncOf(tenant, path, { concurrency: 6, onProgress: (p) => progress.push(p) });
    sync.hooks.on('window', (event) => windows.push(event.event));
    const pagesBefore = tenant.stats.searchPages;
    const summary = await sync.run();
    expect(summary).toMatchObject({ kind: 'full', complete: true, resumed: false, tasksNew: 3_000 });
    expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
    expect(tenant.tasks.some((task) => task.deletedAt)).toBe(true);
    expect(tenant.tasks.some((task) => task.state === 'TASK_STATE_CLOSED')).toBe(true);
    // A window a cursor to start with, and more split off where the tasks are (most are recent).
    expect(windows.filter((event) => event === 'split').length).toBeGreaterThanOrEqual(1);
    expect(summary.windows).toBeGreaterThan(6);
    const pages = tenant.stats.searchPages - pagesBefore;
    // The search for the earliest task is not a window's page. A window's page asked for ahead that
    // was cut short when the window ended is no page fetched: at most one a window.
    expect(pages - 1).toBeGreaterThanOrEqual(summary.pages);
    expect(pages - 1).toBeLessThanOrEqual(summary.pages + summary.windows);
    expect(pages).toBeLessThanOrEqual(Math.ceil((3_000 / 100) * 2.5) + 5);
    expect(progress.at(-1)?.covered).toBeGreaterThan(0.99);
    expect(progress.every((p, i) => i === 0 || p.pages >= (progress[i - 1]?.pages ?? 0))).toBe(true);
  });

  it('keeps each task as the service sent it, and the documented columns', async () => {
    const path = dbPath();
    await syncOf(tenant, path).run();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      const task = tenant.tasks.find((t) => t.deletedAt);
      const row = db.prepare('SELECT * FROM idgov_tasks WHERE id = ?').get(task?.id ?? '') as Record<
        string,
        unknown
      >;
      expect(JSON.parse(String(row.task))).toEqual(JSON.parse(JSON.stringify(task)));
      expect(row).toMatchObject({
        state: task?.state,
        created_at: new Date(String(task?.createdAt)).toISOString(),
        deleted_at: new Date(String(task?.deletedAt)).toISOString(),
      });
      expect(String(row.synced_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
    } finally {
      db.close();
    }
  });
  it('reads the copy back typed, by state, deleted tasks only when asked, and refuses a row the schema does not take', async () => {
    const path = dbPath();
    const store = new SqliteSyncStore({ path });
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logLevel: 'error',
    });
    const sync = new TaskSync({ client, store, logLevel: 'error' });
    opened.push(sync);
    await sync.run();
    const open: string[] = [];
    for await (const { task, deleted, syncedAt } of store.tasks({ state: TaskState.OPEN })) {
      expect(task.state).toBe(TaskState.OPEN);
      expect(deleted).toBe(false);
      expect(syncedAt).toBeInstanceOf(Date);
      open.push(task.id as string);
    }
    const wanted = tenant.tasks.filter((t) => t.state === TaskState.OPEN && !t.deletedAt).map((t) => t.id);
    expect(open).toEqual([...wanted].sort());
    let all = 0;
    for await (const _ of store.tasks({ includeDeleted: true })) all += 1;
    expect(all).toBe(tenant.tasks.length);

    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path);
    db.prepare('UPDATE idgov_tasks SET task = \'{"id": 5}\' WHERE id = ?').run(open[0] ?? '');
    db.close();
    const error = await caught(
      (async () => {
        for await (const _ of store.tasks({ state: TaskState.OPEN })) {
        }
      })(),
    );
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(/copied task .* response does not match the API: id/);
  });

  it('puts the objects of the expand paths asked for into idgov_expanded, by @type and ID', async () => {
    const path = dbPath();
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logLevel: 'error',
    });
    const sync = new TaskSync({
      client,
      store: new SqliteSyncStore({ path }),
      expand: ['app_id', 'user_id'],
      logLevel: 'error',
    });
    opened.push(sync);
    await sync.run();
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(path, { readOnly: true });
    const rows = db.prepare('SELECT type, id, object FROM idgov_expanded').all() as Array<{
      type: string;
      id: string;
      object: string;
    }>;
    db.close();
    const users = new Set(tenant.tasks.map((t) => t.userId));
    expect(new Set(rows.filter((r) => r.type.endsWith('user.v1.User')).map((r) => r.id))).toEqual(users);
    expect(rows.some((r) => r.type.endsWith('app.v1.App'))).toBe(true);
    expect(rows.every((r) => JSON.parse(r.object).id === r.id)).toBe(true);
  });
});

describe('the refresh of open tasks by ID', () => {
  it('writes the expanded objects its answers inline: a new approver of an old open task is in idgov_expanded', async () => {
    const tenant = new FakeTenant({ history: 500, seed: 6 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      const expand: TaskSyncOptions['expand'] = ['approver_ids', 'user_id'];
      await syncOf(tenant, path, { expand }).run();
      // Reassigned without an action: only the refresh of open tasks sees it.
      const old = Date.now() - 86_400_000;
      const at = tenant.tasks.findIndex(
        (task) =>
          task.state === 'TASK_STATE_OPEN' && !task.deletedAt && Date.parse(task.createdAt ?? '') < old,
      );
      tenant.tasks[at] = { ...(tenant.tasks[at] as WireTask), approverIds: ['user-brand-new-approver'] };
      const summary = await syncOf(tenant, path, { expand }).run();
      expect(summary).toMatchObject({ kind: 'incremental', tasksChanged: 1 });
      const db = new DatabaseSync(path, { readOnly: true });
      const rows = db
        .prepare("SELECT type, object FROM idgov_expanded WHERE id = 'user-brand-new-approver'")
        .all() as Array<{
        type: string;
        object: string;
      }>;
      db.close();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.type).toMatch(/user\.v1\.User$/);
      expect(JSON.parse(rows[0]?.object ?? '{}').id).toBe('user-brand-new-approver');
    } finally {
      await close();
    }
  });
});

describe('incremental runs', () => {
  it('make the copy equal again after the tenant closes, creates and deletes tasks, in few pages', async () => {
    const tenant = new FakeTenant({ history: 2_000, seed: 12 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      await syncOf(tenant, path).run();
      const openInCopy = [...copiedTasks(path).values()].filter(
        (task) => task.state === 'TASK_STATE_OPEN' && !task.deleted,
      ).length;
      tenant.closeTasks(150);
      // Created over a few ms, not at one instant: a burst of more than a page is paged from both
      // ends when the timing says so (its own tests), which would make this count vary.
      const created: unknown[] = [];
      for (let batch = 0; batch < 23; batch++) {
        created.push(...tenant.createTasks(10));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      tenant.deleteTasks(40, (task) => task.state === 'TASK_STATE_OPEN');
      const before = tenant.stats.searchPages;
      const summary = await syncOf(tenant, path).run();
      expect(summary).toMatchObject({ kind: 'incremental', complete: true, tasksNew: created.length });
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      // The budget: (new tasks + open tasks) / 100 pages, plus a tenth; and two pages its
      // tenth covers only in larger tenants (see the crash test): the probe of includeActedAfter,
      // and the last page of the pass of tasks acted on.
      const budget = ((created.length + openInCopy) / 100) * 1.1;
      expect(tenant.stats.searchPages - before).toBeLessThanOrEqual(Math.ceil(budget) + 2);
    } finally {
      await close();
    }
  });

  it('see closed tasks acted on since (a comment) by asking for tasks acted on, and fetch no task twice', async () => {
    const tenant = new FakeTenant({ history: 1_500, seed: 17 });
    const { close } = await tenant.listen();
    const asked: Array<{
      body: { includeActedAfter?: string; createdAfter?: string; refs?: Array<{ id: string }> };
      ids: string[];
    }> = [];
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logLevel: 'error',
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const answer = await fetch(request.clone());
        if (request.url.endsWith('/search/tasks') && answer.ok) {
          const { list } = (await answer.clone().json()) as { list: Array<{ task: { id: string } }> };
          asked.push({ body: await request.json(), ids: list.map((view) => view.task.id) });
        }
        return answer;
      },
    });
    const syncOfAsked = (path: string) => {
      const sync = new TaskSync({ client, store: new SqliteSyncStore({ path }), logLevel: 'error' });
      opened.push(sync);
      return sync;
    };
    try {
      const path = dbPath();
      await syncOfAsked(path).run();
      const db = new DatabaseSync(path, { readOnly: true });
      const { started_at: lastStarted } = db.prepare('SELECT started_at FROM idgov_sync_runs').get() as {
        started_at: number;
      };
      db.close();
      const openInCopy = [...copiedTasks(path).values()]
        .filter((task) => task.state === 'TASK_STATE_OPEN' && !task.deleted)
        .map((task) => task.id);
      const updated = new Map(tenant.tasks.map((task) => [task.id, task.updatedAt]));
      const commented = tenant.commentOnTasks(30, (task) => task.state === 'TASK_STATE_CLOSED');
      // A service whose comment leaves updatedAt as it was: the task is still acted on.
      for (const task of commented.slice(0, 10)) {
        (task as { updatedAt?: string | null }).updatedAt = updated.get(task.id);
      }
      const closed = tenant.closeTasks(40);
      asked.length = 0;
      const summary = await syncOfAsked(path).run();
      expect(summary).toMatchObject({ kind: 'incremental', complete: true, pages: asked.length });
      expect(summary.tasksChanged).toBeGreaterThanOrEqual(commented.length + closed.length);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      const copy = new DatabaseSync(path, { readOnly: true });
      const comments = (id: string) =>
        JSON.parse(
          (copy.prepare('SELECT task FROM idgov_tasks WHERE id = ?').get(id) as { task: string }).task,
        ).commentCount;
      expect(commented.map((task) => comments(task.id as string))).toEqual(
        commented.map((t) => t.commentCount),
      );
      copy.close();
      // First a probe: tasks acted on a day after the run began, which a service applying the
      // bound answers with none; then the tasks acted on since the last run began (less the overlap,
      // and a second: the service's clock, which the run went by, is told to the second).
      const [probe, ...rest] = asked.filter(({ body }) => body.includeActedAfter);
      expect(Date.parse(probe?.body.includeActedAfter ?? '')).toBeGreaterThan(Date.now() + 3_600_000);
      expect(probe?.ids).toEqual([]);
      expect(new Set(rest.map(({ body }) => body.includeActedAfter))).toEqual(
        new Set([new Date(lastStarted - 600_000 - 1_000).toISOString()]),
      );
      // The refresh waited for the windows, and asked for none of the tasks their pages returned.
      const paged = new Set(asked.filter(({ body }) => !body.refs).flatMap(({ ids }) => ids));
      const refreshed = asked.flatMap(({ body }) => (body.refs ?? []).map((ref) => ref.id));
      expect(refreshed.filter((id) => paged.has(id))).toEqual([]);
      expect(new Set(refreshed).size).toBe(refreshed.length);
      expect(openInCopy.filter((id) => !paged.has(id) && !refreshed.includes(id))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('cannot see a closed task deleted later; a full run can, and marks the tasks that vanished', async () => {
    const tenant = new FakeTenant({ history: 300, seed: 16 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      await syncOf(tenant, path).run();
      const [closedThenDeleted] = tenant.deleteTasks(1, (task) => task.state === 'TASK_STATE_CLOSED');
      await syncOf(tenant, path).run();
      expect(copiedTasks(path).get(closedThenDeleted?.id as string)?.deleted).toBe(false);
      const full = await syncOf(tenant, path).run({ full: true });
      expect(full.kind).toBe('full');
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a full run marks tasks that vanished from the service', async () => {
    const tenant = new FakeTenant({ history: 300, seed: 13 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      await syncOf(tenant, path).run();
      const gone = tenant.tasks.splice(10, 5);
      const summary = await syncOf(tenant, path).run({ full: true });
      expect(summary).toMatchObject({ kind: 'full', tasksDeleted: 5 });
      const copy = copiedTasks(path);
      for (const task of gone) expect(copy.get(task.id as string)?.deleted).toBe(true);
    } finally {
      await close();
    }
  });
});

describe('stopping and resuming', () => {
  it('a run stopped by its signal keeps what it committed, and the next run resumes it', async () => {
    const tenant = new FakeTenant({ history: 2_000, seed: 14, latencyMs: 5 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      const controller = new AbortController();
      const first = syncOf(tenant, path, {
        concurrency: 3,
        onProgress: (p) => {
          if (p.pages >= 6) controller.abort();
        },
      });
      const stopped = await first.run({ signal: controller.signal });
      expect(stopped.complete).toBe(false);
      const partial = copiedTasks(path).size;
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(2_000);
      await first.close();
      const resumed = await syncOf(tenant, path).run();
      expect(resumed).toMatchObject({ kind: 'full', resumed: true, complete: true });
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe('a store that fails for a moment', () => {
  it("at the run's last call is said answering again when the run ends, though no call followed", async () => {
    const tenant = new FakeTenant({ history: 300, seed: 15 });
    const { close } = await tenant.listen();
    try {
      const warned: string[] = [];
      const store = new SqliteSyncStore({ path: dbPath() });
      let failures = 1;
      // The run's last call (letting go of the copy) fails once, and passes 250 ms later.
      const blinking = new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof value !== 'function') return value;
          if (key !== 'release') return value.bind(target);
          return async (...args: unknown[]) => {
            if (failures-- > 0) throw new StoreError('connection reset', { transient: true });
            return value.apply(target, args);
          };
        },
      });
      const sync = new TaskSync({
        client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' }),
        store: blinking,
        logger: { error() {}, info() {}, debug() {}, warn: (m) => void warned.push(m) },
      });
      opened.push(sync);
      expect(await sync.run()).toMatchObject({ complete: true });
      expect(warned).toEqual([
        '[@idgov/sdk] task sync: a store call failed (@idgov/sdk: connection reset); trying again in 250 ms',
        expect.stringMatching(
          /^\[@idgov\/sdk\] task sync: the store answers again, after 0\.\d s of failures$/,
        ),
      ]);
    } finally {
      await close();
    }
  });
});

describe('a run ended by another', () => {
  it('says so in its summary (superseded, not complete) when a full run elsewhere ended it unfinished', async () => {
    const tenant = new FakeTenant({ history: 1_000, seed: 16, latencyMs: 5 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      expect(await syncOf(tenant, path).run()).toMatchObject({ complete: true });
      tenant.createTasks(400);
      const store = new SqliteSyncStore({ path });
      let ended: Promise<void> | undefined;
      const sync = new TaskSync({
        client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' }),
        store,
        concurrency: 1,
        logLevel: 'error',
        hooks: {
          // After its first page, the run is ended as another worker's full: true ends it.
          progress: (p) => {
            if (p.pages < 1 || ended) return;
            ended = store.unfinishedRun().then((run) => run && store.endRun(run));
          },
        },
      });
      opened.push(sync);
      const summary = await sync.run();
      await ended;
      expect(summary).toMatchObject({ kind: 'incremental', complete: false, superseded: true });
    } finally {
      await close();
    }
  });
});

describe('a copy of an older schema version', () => {
  it('left mid-run by an earlier release (schema version 1) is migrated, and its run resumed to the end', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const { readFileSync } = await import('node:fs');
    const tenant = new FakeTenant({ history: 800, seed: 16 });
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const old = new DatabaseSync(path);
      old.exec(readFileSync(new URL('../fixtures/sync-schema-v1.sql', import.meta.url), 'utf8'));
      const earliest = Math.min(...tenant.tasks.map((t) => Date.parse(t.createdAt as string)));
      const insert = old.prepare('INSERT INTO idgov_sync_meta (key, value) VALUES (?, ?)');
      insert.run('schema_version', '1');
      insert.run('base_url', client.baseUrl);
      insert.run('filter', '{}');
      old.prepare("INSERT INTO idgov_sync_runs (kind, started_at) VALUES ('full', ?)").run(Date.now());
      old
        .prepare(
          "INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, state) VALUES (1, ?, ?, ?, ?, ?, 'active')",
        )
        .run(earliest, Date.now(), earliest, earliest, Date.now());
      old.close();
      // Read as it is (idgov status migrates nothing), it says where it stands: no lease in it.
      const reader = new SqliteSyncStore({ path, readOnly: true });
      expect(await reader.status()).toMatchObject({
        unfinishedRun: { kind: 'full', windowsLeft: 1 },
        leases: { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 },
      });
      await reader.close();

      const sync = new TaskSync({ client, store: new SqliteSyncStore({ path }), logLevel: 'error' });
      opened.push(sync);
      expect(await sync.run()).toMatchObject({ kind: 'full', resumed: true, complete: true });
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      await sync.close();
      const db = new DatabaseSync(path, { readOnly: true });
      const version = db.prepare("SELECT value FROM idgov_sync_meta WHERE key = 'schema_version'").get();
      const columns = (table: string) =>
        (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
      const windowColumns = columns('idgov_sync_windows');
      const runColumns = columns('idgov_sync_runs');
      const indexes = (db.prepare('PRAGMA index_list(idgov_tasks)').all() as Array<{ name: string }>).map(
        (index) => index.name,
      );
      db.close();
      expect(version).toEqual({ value: '6' });
      expect(windowColumns).toEqual(
        expect.arrayContaining(['lease_until', 'acted_after_ms', 'sort_by', 'pair', 'edge']),
      );
      expect(runColumns).toEqual(expect.arrayContaining(['acted_after_ms', 'unordered']));
      // Leases are found through their own index (not by reading every task), and the index that
      // (created_at, id) serves as well is gone: one fewer to write with every task.
      expect(indexes).toContain('idgov_tasks_leased');
      expect(indexes).not.toContain('idgov_tasks_created_at');
    } finally {
      await close();
    }
  });

  it('of a newer schema version than this SDK is refused, saying to upgrade', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const path = dbPath();
    const db = new DatabaseSync(path);
    db.exec(
      "CREATE TABLE idgov_sync_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO idgov_sync_meta VALUES ('schema_version', '99')",
    );
    db.close();
    const tenant = new FakeTenant({ history: 10, seed: 17 });
    const { close } = await tenant.listen();
    try {
      const error = await caught(syncOf(tenant, path).run());
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toMatch(/schema version 99, newer than this SDK's 6: upgrade @idgov\/sdk/);
    } finally {
      await close();
    }
  });
});

describe('bad setups', () => {
  const tenant = new FakeTenant({ history: 50, seed: 15 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('a copy of another tenant or filter is refused, naming both', async () => {
    const path = dbPath();
    const first = syncOf(tenant, path);
    await first.run();
    await first.close();
    const other = new TaskSync({
      client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' }),
      store: new SqliteSyncStore({ path }),
      filter: { applicationIds: ['app-okta'] },
    });
    opened.push(other);
    const error = await caught(other.run());
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toContain('with the filter {}');
    expect(error.message).toContain('with the filter {"applicationIds":["app-okta"]}');
    expect(error.message).toMatch(/Use another file/);
  });

  it("a filter's lists are sets: the same IDs in another order, or twice, are the same copy, also one an earlier release kept", async () => {
    const path = dbPath();
    const withApps = (applicationIds: string[]) => {
      const sync = new TaskSync({
        client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' }),
        store: new SqliteSyncStore({ path }),
        filter: { applicationIds },
      });
      opened.push(sync);
      return sync;
    };
    expect(await withApps(['app-okta', 'app-github']).run()).toMatchObject({ complete: true });
    expect(await withApps(['app-github', 'app-okta', 'app-github']).run()).toMatchObject({ complete: true });
    // An earlier release kept the list in the order given.
    const file = new DatabaseSync(path);
    file
      .prepare("UPDATE idgov_sync_meta SET value = ? WHERE key = 'filter'")
      .run('{"applicationIds":["app-okta","app-github"]}');
    file.close();
    expect(await withApps(['app-github', 'app-okta']).run()).toMatchObject({ complete: true });
    expect(await caught(withApps(['app-okta']).run())).toBeInstanceOf(ConfigurationError);
  });

  it('a second sync of one SQLite copy at once is refused, saying which process holds it', async () => {
    const path = dbPath();
    // Slow enough that a is still running when b opens (a starts a thread of its own first).
    const slowTenant = new FakeTenant({ history: 500, seed: 18, latencyMs: 200 });
    const { close: closeSlow } = await slowTenant.listen();
    onTestFinished(() => closeSlow());
    const a = syncOf(slowTenant, path);
    const b = syncOf(slowTenant, path);
    const slow = new AbortController();
    const holding = new Promise((resolve) => a.hooks.on('window', resolve));
    const running = a.run({ signal: slow.signal });
    // b opens while a holds the copy: the same process counts as another holder only through another store.
    await holding;
    const error = await caught(b.run());
    slow.abort();
    await running;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/Another sync \(process \d+ on .+\) is running on/);
  });

  it('refuses a filter on fields that change, saying to filter the copy', () => {
    expect(
      () =>
        new TaskSync({
          client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client }),
          store: new SqliteSyncStore({ path: dbPath() }),
          filter: { taskStates: ['TASK_STATE_OPEN'] } as never,
        }),
    ).toThrow(/filter\.taskStates cannot filter a sync.*Filter the copy/);
  });
});

describe('an idle cursor', () => {
  it('splits a window with more than a page of tasks left, rather than wait for its cursor to page them all', async () => {
    const now = Date.now();
    const data = new FakeData(48, { now });
    const at = (ms: number) => new Date(ms).toISOString();
    const DAY = 86_400_000;
    // Two first windows: the older holds one page of tasks, the newer three, spread evenly. Once
    // each cursor paged one, the newer window's cursor has two pages left and the other none.
    const tasks = [
      ...Array.from({ length: 20 }, (_, i) => data.task({ createdAt: at(now - 10 * DAY + i * 60_000) })),
      ...Array.from({ length: 300 }, (_, i) => data.task({ createdAt: at(now - 4 * DAY + i * 1_000_000) })),
    ];
    // Slow enough answers that the idle cursor looks before the next page commits.
    const tenant = new FakeTenant({ tasks, seed: 48, latencyMs: 50 });
    const { close } = await tenant.listen();
    onTestFinished(close);
    const path = dbPath();
    const windows: string[] = [];
    const sync = syncOf(tenant, path, { concurrency: 2 });
    sync.hooks.on('window', (event) => windows.push(event.event));
    const summary = await sync.run();
    expect(summary).toMatchObject({ complete: true, tasksNew: 320 });
    expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
    expect(windows.filter((event) => event === 'split')).toHaveLength(1);
    // Its cursor alone would have paged 1 + 3. The split costs a page to end the new half, and the
    // page asked for ahead past the new end, if it came in before the window ended.
    expect(summary.pages).toBeLessThanOrEqual(6);
  });
});

describe('idle cursors', () => {
  it('look for work one at a time: the store is asked to end the run about once a page, not once a cursor', async () => {
    const tenant = new FakeTenant({ history: 2_000, seed: 49, latencyMs: 20 });
    const { close } = await tenant.listen();
    onTestFinished(close);
    const store = new SqliteSyncStore({ path: dbPath() });
    const asked = { finishRun: 0, toldFinished: 0 };
    const counted = new Proxy(store, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key !== 'finishRun') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: Parameters<typeof store.finishRun>) => {
          asked.finishRun += 1;
          const end = await store.finishRun(...args);
          if (end.finished) asked.toldFinished += 1;
          return end;
        };
      },
    });
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logLevel: 'error',
    });
    const sync = new TaskSync({ client, store: counted, concurrency: 16, logLevel: 'error' });
    opened.push(sync);
    const summary = await sync.run();
    expect(summary.complete).toBe(true);
    // A look is sent by a ring (a page committed, a window claimed or left), or by the one waiting
    // longest at its timeout (a quarter of a second). Woken all at once, each ring sent all of them,
    // and each timed out.
    const looks = summary.pages + 2 * summary.windows + Math.ceil((summary.durationMs / 250) * 2);
    expect(asked.finishRun).toBeLessThanOrEqual(looks);
    // Once one cursor found the run over, the others waiting leave without asking the store again:
    // only those still at work when it ended are told (a burst's two ends finish together), not all 16.
    expect(asked.toldFinished).toBeLessThan(8);
  });
});
