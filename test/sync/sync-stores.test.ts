/**
 * The sync store contract, run against every store: the scheduling rules both SQL dialects restate
 * (windows and their leases, splits, the refresh of open tasks, marking vanished tasks, ending a run
 * once) and the copy's reader, asserted through the `SyncStore` interface alone, as `TaskSync` and a
 * user's own store meet it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, StoreError, TaskState } from '../../src/index.ts';
import { thisProcess } from '../../src/stores/local-process.ts';
import type { CopyReader, SyncLease, SyncStore, TaskRow } from '../../src/sync/index.ts';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { caught } from '../helpers/caught.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

type Store = SyncStore & CopyReader;

const dir = mkdtempSync(join(tmpdir(), 'idgov-stores-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL store contract: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

let n = 0;
/** Each kind of store: `make(place)` opens the copy at `place` (a file, a table prefix). */
const kinds: Array<{ name: string; skip: boolean; place(): string; make(place: string): Promise<Store> }> = [
  {
    name: 'SQLite',
    skip: false,
    place: () => join(dir, `copy-${++n}.db`),
    make: async (path) => new SqliteSyncStore({ path }),
  },
  {
    name: "SQLite on the caller's thread",
    skip: false,
    place: () => join(dir, `copy-${++n}.db`),
    make: async (path) => new SqliteSyncStore({ path, thread: false }),
  },
  {
    name: 'PostgreSQL',
    skip: !pg,
    place: () => `${pg?.schema}.contract_${++n}`,
    make: async (table) => {
      const store = new PostgresSyncStore({ connectionString: pg?.url, table, logLevel: 'error' });
      await store.migrate();
      return store;
    },
  },
];

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const identity = { baseUrl: 'https://acme.example.com', filter: '{}' };
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(ms).toISOString();
const lease = (holder: string, ms = 60_000): SyncLease => ({ holder, ms });

/** A task row as the engine hands it to a store. */
function row(
  id: string,
  created: number,
  fields: { state?: string; updated?: number; deleted?: number } = {},
): TaskRow {
  const state = fields.state ?? 'TASK_STATE_OPEN';
  const task = {
    id,
    state,
    createdAt: at(created),
    updatedAt: at(fields.updated ?? created),
    ...(fields.deleted !== undefined ? { deletedAt: at(fields.deleted) } : {}),
  };
  return {
    id,
    state,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    deletedAt: fields.deleted !== undefined ? at(fields.deleted) : undefined,
    json: JSON.stringify(task),
  };
}

/** A page of `tasks` that ends the window's query at `cursor` (exhausted unless a token follows). */
function page(
  tasks: TaskRow[],
  cursor: number,
  window: { queryFrom: number; queryTo: number },
  token?: string,
) {
  return {
    tasks,
    expanded: [],
    cursor,
    moved: true,
    queryFrom: window.queryFrom,
    queryTo: window.queryTo,
    token,
    exhausted: token === undefined,
    syncedAt: Date.now(),
  };
}

/** What the copy holds, by ID: state, deleted, vanished. */
async function held(store: Store): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const r of store.rows({ includeDeleted: true })) {
    out[r.id] = `${r.state}${r.deletedAt ? ' deleted' : ''}${r.vanished ? ' vanished' : ''}`;
  }
  return out;
}

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`the sync store contract on ${kind.name}`, () => {
    async function fresh(place = kind.place()): Promise<Store> {
      const store = await kind.make(place);
      opened.push(store);
      await store.open(identity);
      return store;
    }

    it('a new copy knows no run; once a run began, a copy of another tenant or filter is refused naming both', async () => {
      const place = kind.place();
      const store = await kind.make(place);
      expect(await store.open(identity)).toEqual({
        lastRunStartedAt: undefined,
        earliestCreatedAt: undefined,
        actedSeenSince: undefined,
      });
      expect(await store.unfinishedRun()).toBeUndefined();
      await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      await store.close();
      const other = await kind.make(place);
      opened.push(other);
      const error = await caught(other.open({ baseUrl: 'https://other.example.com', filter: '{}' }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain('https://acme.example.com');
      expect((error as Error).message).toContain('https://other.example.com');
    });

    it('one unfinished run at a time: beginning another gives the first, resumed, until it finishes', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      expect(run).toMatchObject({ kind: 'full', startedAt: T0, resumed: false });
      const again = await store.beginRun('incremental', T0 + 5, []);
      expect(again).toMatchObject({ id: run.id, kind: 'full', resumed: true });
      expect(await store.unfinishedRun()).toMatchObject({ id: run.id, resumed: true });
      const window = await store.claimWindow(run, lease('a'));
      await store.commitPage(run, window as never, page([], T0, window as never), lease('a'));
      expect(await store.finishRun(run, T0 + 10)).toEqual({ finished: true, vanished: 0 });
      expect(await store.unfinishedRun()).toBeUndefined();
      expect((await store.beginRun('incremental', T0 + 20, [])).id).not.toBe(run.id);
    });

    it('a run a commit says is answered out of creation order says so to every worker that joins or resumes it, and to the next commit of another', async () => {
      const place = kind.place();
      const store = await fresh(place);
      const run = await store.beginRun('full', T0, [
        { from: T0 - 3 * DAY, to: T0 - 2 * DAY },
        { from: T0 - 2 * DAY, to: T0 - DAY + 1 },
        { from: T0 - DAY, to: T0 + 2 },
      ]);
      expect(run.unordered).toBeUndefined();
      const mine = await store.claimWindow(run, lease('a'));
      const theirs = await store.claimWindow(run, lease('b'));
      if (!mine || !theirs) throw new Error('no window');
      expect(mine.unordered).toBeUndefined();
      const plain = await store.commitPage(run, mine, page([], mine.cursor, mine, 'next'), lease('a'));
      expect(plain.unordered).toBeUndefined();
      expect((await store.unfinishedRun())?.unordered).toBeUndefined();
      // a found the service out of order: its commit says so, and the run keeps it.
      await store.commitPage(
        run,
        mine,
        { ...page([], mine.cursor, mine, 'next'), unordered: true },
        lease('a'),
      );
      expect(await store.unfinishedRun()).toMatchObject({ id: run.id, unordered: true });
      // b, which has not seen it, learns it at its next commit.
      const told = await store.commitPage(run, theirs, page([], theirs.cursor, theirs, 'next'), lease('b'));
      expect(told).toMatchObject({ lost: false, unordered: true });
      // So does a worker that claims a window of it, before its first page.
      expect(await store.claimWindow(run, lease('c'))).toMatchObject({ unordered: true });
      // A worker (or process) that joins or resumes the run gets it with the run.
      await store.close();
      const resumed = await fresh(place);
      expect(await resumed.beginRun('full', T0 + 5, [])).toMatchObject({ id: run.id, unordered: true });
      // The next run starts without it.
      for (const holder of ['a', 'b', 'c']) {
        const window = await resumed.claimWindow(run, lease(holder));
        if (window) await resumed.commitPage(run, window, page([], window.cursor, window), lease(holder));
      }
      expect(await resumed.finishRun(run, T0 + 10)).toMatchObject({ finished: true });
      expect((await resumed.beginRun('incremental', T0 + 20, [])).unordered).toBeUndefined();
    });

    it('claims the window with the most time left first, never one a live lease holds, and gives a holder its own back', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [
        { from: T0 - 3 * DAY, to: T0 - 2 * DAY },
        { from: T0 - 2 * DAY, to: T0 },
      ]);
      const first = await store.claimWindow(run, lease('a'));
      expect(first).toMatchObject({ from: T0 - 2 * DAY, to: T0, cursor: T0 - 2 * DAY, token: undefined });
      const second = await store.claimWindow(run, lease('b'));
      expect(second).toMatchObject({ from: T0 - 3 * DAY, to: T0 - 2 * DAY });
      expect(await store.claimWindow(run, lease('c'))).toBeUndefined();
      // A commit of a's that failed: a claims its window again.
      expect(await store.claimWindow(run, lease('a'))).toMatchObject({ id: first?.id });
    });

    it('commits a page with its checkpoint; a holder that lost its window writes nothing', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const window = await store.claimWindow(run, lease('a', 100));
      if (!window) throw new Error('no window');
      const first = await store.commitPage(
        run,
        window,
        page([row('t1', T0 - DAY + 1), row('t2', T0 - DAY + 2)], T0 - DAY + 2, window, 'next'),
        lease('a', 100),
      );
      expect(first).toEqual({ to: T0, done: false, lost: false, counts: { new: 2, changed: 0, deleted: 0 } });
      // a stops renewing; once its lease ran out, b resumes from the checkpoint, token and all.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const resumed = await store.claimWindow(run, lease('b'));
      expect(resumed).toMatchObject({ id: window.id, cursor: T0 - DAY + 2, token: 'next' });
      const late = await store.commitPage(run, window, page([row('t3', T0 - 5)], T0 - 5, window), lease('a'));
      expect(late).toMatchObject({ lost: true, counts: { new: 0, changed: 0, deleted: 0 } });
      expect(Object.keys(await held(store)).sort()).toEqual(['t1', 't2']);
      const done = await store.commitPage(
        run,
        resumed as never,
        page([row('t3', T0 - 5)], T0 - 5, resumed as never),
        lease('b'),
      );
      expect(done).toMatchObject({ done: true, lost: false, counts: { new: 1 } });
      expect(await store.claimWindow(run, lease('c'))).toBeUndefined();
    });

    it("lets a later fetch replace an earlier one whatever updatedAt says (the service nodes' clocks differ), and counts what changed", async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const window = await store.claimWindow(run, lease('a'));
      if (!window) throw new Error('no window');
      // A comment stamped by a node 10 minutes ahead, then a close by a node on time.
      const commented = row('t1', T0 - 10, { state: 'TASK_STATE_OPEN', updated: T0 + 600_000 });
      const closed = row('t1', T0 - 10, { state: 'TASK_STATE_CLOSED', updated: T0 + 60_000 });
      const result = await store.commitPage(
        run,
        window,
        page([commented], T0 - 10, window, 'p2'),
        lease('a'),
      );
      expect(result.counts).toEqual({ new: 1, changed: 0, deleted: 0 });
      const later = await store.commitPage(run, window, page([closed], T0 - 10, window, 'p3'), lease('a'));
      expect(later.counts).toEqual({ new: 0, changed: 1, deleted: 0 });
      expect(await held(store)).toEqual({ t1: 'TASK_STATE_CLOSED' });
      const deleted = row('t1', T0 - 10, { state: 'TASK_STATE_CLOSED', updated: T0 - 1, deleted: T0 - 1 });
      const last = await store.commitPage(run, window, page([deleted], T0 - 10, window), lease('a'));
      expect(last.counts).toMatchObject({ new: 0, deleted: 1 });
      expect((await store.finishRun(run, T0)).finished).toBe(true);
      // The next run's fetch replaces it too, its updatedAt older still.
      const next = await store.beginRun('full', T0 + DAY, [{ from: T0 - DAY, to: T0 + DAY }]);
      const w2 = await store.claimWindow(next, lease('a'));
      const reopened = row('t1', T0 - 10, { state: 'TASK_STATE_OPEN', updated: T0 - 5 });
      await store.commitPage(next, w2 as never, page([reopened], T0 + DAY, w2 as never), lease('a'));
      expect(await held(store)).toEqual({ t1: 'TASK_STATE_OPEN' });
    });

    it("a window writes only the tasks of its range: one at an edge it shares is the next window's, however late the page that also fetched it commits", async () => {
      const store = await fresh();
      const edge = T0 - DAY;
      const run = await store.beginRun('full', T0, [
        { from: T0 - 2 * DAY, to: edge },
        { from: edge, to: T0 },
      ]);
      // Both a day long: which is claimed first is the store's choice.
      const claimed = [await store.claimWindow(run, lease('r')), await store.claimWindow(run, lease('l'))];
      const right = claimed.find((w) => w?.from === edge);
      const left = claimed.find((w) => w?.to === edge);
      if (!left || !right) throw new Error('no windows');
      const holder = (w: { id: number }) => lease(w.id === claimed[0]?.id ? 'r' : 'l');
      // The right window fetched the task at the edge after it closed, and committed first.
      await store.commitPage(
        run,
        right,
        page([row('edge', edge, { state: 'TASK_STATE_CLOSED' })], edge, right, 'r2'),
        holder(right),
      );
      // The left window's page, fetched earlier, holds it still open, with one a ms past the edge
      // and one a ms before its start (its queries reach that far), which no window ends at.
      const late = await store.commitPage(
        run,
        left,
        page(
          [row('before', T0 - 2 * DAY - 1), row('mine', edge - 1), row('edge', edge), row('past', edge + 1)],
          edge + 1,
          left,
        ),
        holder(left),
      );
      expect(late).toMatchObject({ done: true, counts: { new: 2, changed: 0 } });
      expect(await held(store)).toEqual({
        before: 'TASK_STATE_OPEN',
        edge: 'TASK_STATE_CLOSED',
        mine: 'TASK_STATE_OPEN',
      });
      // The last window writes what lies past the run's end (no window begins there).
      await store.commitPage(
        run,
        right,
        page([row('past', edge + 1), row('end', T0 + 1)], T0 + 1, right),
        holder(right),
      );
      expect(Object.keys(await held(store)).sort()).toEqual(['before', 'edge', 'end', 'mine', 'past']);
    });

    it("a page fetched before its window was split writes nothing past the new end: that is the new window's, committed first or not", async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - 1_000, to: T0 }]);
      const limits = { minTasks: 200, minSpanMs: 2 };
      const window = await store.claimWindow(run, lease('a'));
      if (!window) throw new Error('no window');
      const dense = Array.from({ length: 100 }, (_, i) => row(`t${i}`, T0 - 1_000 + i));
      await store.commitPage(run, window, page(dense, T0 - 901, window, 'p2'), lease('a'));
      expect(await store.splitLargest(run, limits)).toBe(true);
      const half = await store.claimWindow(run, lease('b'));
      if (!half) throw new Error('no half');
      // The new half fetches and commits the task closed; the page fetched before the split, open.
      await store.commitPage(
        run,
        half,
        page([row('x', T0 - 10, { state: 'TASK_STATE_CLOSED' })], T0 - 10, half),
        lease('b'),
      );
      const stale = [row('y', T0 - 850), row('x', T0 - 10)];
      const late = await store.commitPage(run, window, page(stale, T0 - 10, window, 'p3'), lease('a'));
      expect(late).toMatchObject({ to: half.from, counts: { new: 1, changed: 0 } });
      expect((await held(store)).x).toBe('TASK_STATE_CLOSED');
    });

    it('splits the window with the most tasks left at the midpoint of its time left; the new half is free to claim', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - 1_000, to: T0 }]);
      const limits = { minTasks: 200, minSpanMs: 2 };
      // Nothing known of the window before its first page: nothing to split.
      expect(await store.splitLargest(run, limits)).toBe(false);
      const window = await store.claimWindow(run, lease('a'));
      if (!window) throw new Error('no window');
      const dense = Array.from({ length: 100 }, (_, i) => row(`t${i}`, T0 - 1_000 + i));
      await store.commitPage(run, window, page(dense, T0 - 901, window, 'p2'), lease('a'));
      expect(await store.splitLargest(run, limits)).toBe(true);
      const half = await store.claimWindow(run, lease('b'));
      expect(half).toMatchObject({ from: T0 - 901 + 450, to: T0, cursor: T0 - 901 + 450 });
      // The half split off shows nothing yet: the window it came from is not split again.
      expect(await store.splitLargest(run, limits)).toBe(false);
      // The holder's commit learns that its window now ends where the split cut it.
      const next = await store.commitPage(run, window, page([], T0 - 800, window, 'p3'), lease('a'));
      expect(next).toMatchObject({ to: T0 - 901 + 450, done: false });
    });

    it('splits a window in a burst just past the burst, so that its cursor keeps only the burst and another takes what follows', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - 10_000, to: T0 }]);
      const limits = { minTasks: 200, minSpanMs: 2 };
      const window = await store.claimWindow(run, lease('a'));
      if (!window) throw new Error('no window');
      // A first page of tasks a ms apart, then a page all of one instant: a burst, paged by token.
      const spread = Array.from({ length: 100 }, (_, i) => row(`s${i}`, T0 - 10_000 + i * 10));
      await store.commitPage(run, window, page(spread, T0 - 9_010, window, 'p2'), lease('a'));
      const burstAt = T0 - 9_000;
      const burst = Array.from({ length: 100 }, (_, i) => row(`b${i}`, burstAt));
      await store.commitPage(
        run,
        window,
        { ...page(burst, burstAt, window, 'p3'), moved: true, inBurst: true },
        lease('a'),
      );
      expect(await store.splitLargest(run, limits)).toBe(true);
      const rest = await store.claimWindow(run, lease('b'));
      expect(rest).toMatchObject({ from: burstAt + 1, to: T0, cursor: burstAt + 1 });
      // The burst's cursor learns that its window now ends just past the burst.
      const next = await store.commitPage(
        run,
        window,
        page(burst.slice(0, 1), burstAt, window, 'p4'),
        lease('a'),
      );
      expect(next).toMatchObject({ to: burstAt + 1, done: false });
    });

    it('refreshes open tasks only once every window is done: unseen ones, by ID, each to one holder; what is missing is marked vanished', async () => {
      const store = await fresh();
      const full = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w = await store.claimWindow(full, lease('a'));
      const tasks = ['t5', 't1', 't4', 't2', 't3'].map((id, i) => row(id, T0 - 100 + i));
      tasks.push(row('t6', T0 - 50, { state: 'TASK_STATE_CLOSED' }));
      await store.commitPage(full, w as never, page(tasks, T0 - 50, w as never), lease('a'));
      expect((await store.finishRun(full, T0 + 1)).finished).toBe(true);

      const run = await store.beginRun('incremental', T0 + DAY, [{ from: T0, to: T0 + DAY }]);
      expect(await store.claimOpenTasks(run, lease('a'), 10)).toEqual([]); // a window is pending
      const window = await store.claimWindow(run, lease('a'));
      // The window fetched t3 again: it needs no refresh.
      await store.commitPage(
        run,
        window as never,
        page([row('t3', T0 - 98)], T0 + DAY, window as never),
        lease('a'),
      );
      expect((await store.finishRun(run, T0 + DAY)).finished).toBe(false); // open tasks to refresh
      expect(await store.claimOpenTasks(run, lease('a'), 2)).toEqual(['t1', 't2']);
      expect(await store.claimOpenTasks(run, lease('b'), 10)).toEqual(['t4', 't5']);
      expect(await store.claimOpenTasks(run, lease('c'), 10)).toEqual([]);
      const closed = row('t1', T0 - 100, { state: 'TASK_STATE_CLOSED', updated: T0 + 5 });
      const counts = await store.commitRefresh(
        run,
        { tasks: [closed], vanished: ['t2'], syncedAt: Date.now() },
        lease('a'),
      );
      expect(counts).toEqual({ new: 0, changed: 1, deleted: 1 });
      await store.commitRefresh(
        run,
        { tasks: [row('t4', T0 - 97), row('t5', T0 - 100)], vanished: [], syncedAt: Date.now() },
        lease('b'),
      );
      expect(await store.finishRun(run, T0 + DAY)).toEqual({ finished: true, vanished: 0 });
      expect(await held(store)).toEqual({
        t1: 'TASK_STATE_CLOSED',
        t2: 'TASK_STATE_OPEN deleted vanished',
        t3: 'TASK_STATE_OPEN',
        t4: 'TASK_STATE_OPEN',
        t5: 'TASK_STATE_OPEN',
        t6: 'TASK_STATE_CLOSED',
      });
    });

    it('a full run asks by ID for every live task it did not see, closed ones too, before it marks them vanished: one still there stays', async () => {
      const store = await fresh();
      const first = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w1 = await store.claimWindow(first, lease('a'));
      const tasks = [
        row('open', T0 - 9),
        row('closed', T0 - 8, { state: 'TASK_STATE_CLOSED' }),
        row('deleted', T0 - 7, { deleted: T0 - 7 }),
        row('seen', T0 - 6),
      ];
      await store.commitPage(first, w1 as never, page(tasks, T0, w1 as never), lease('a'));
      expect((await store.finishRun(first, T0)).finished).toBe(true);
      // The second full run's pages miss all but one (a purge shifted a service's offset tokens).
      const second = await store.beginRun('full', T0 + DAY, [{ from: T0 - DAY, to: T0 + DAY }]);
      const w2 = await store.claimWindow(second, lease('a'));
      await store.commitPage(
        second,
        w2 as never,
        page([row('seen', T0 - 6)], T0 + DAY, w2 as never),
        lease('a'),
      );
      expect(await store.finishRun(second, T0 + DAY)).toMatchObject({ finished: false });
      expect(await store.claimOpenTasks(second, lease('a'), 10)).toEqual(['closed', 'open']);
      const counts = await store.commitRefresh(
        second,
        {
          tasks: [row('closed', T0 - 8, { state: 'TASK_STATE_CLOSED' })],
          vanished: ['open'],
          syncedAt: T0 + DAY,
        },
        lease('a'),
      );
      expect(counts).toEqual({ new: 0, changed: 0, deleted: 1 });
      // A deleted task it did not see is vanished, but was not newly deleted.
      expect(await store.finishRun(second, T0 + DAY)).toEqual({ finished: true, vanished: 0 });
      expect(await held(store)).toEqual({
        closed: 'TASK_STATE_CLOSED',
        deleted: 'TASK_STATE_OPEN deleted vanished',
        open: 'TASK_STATE_OPEN deleted vanished',
        seen: 'TASK_STATE_OPEN',
      });
    });

    it('a run ended unfinished (a full run asked for) counts as no run and hands out no more work', async () => {
      const store = await fresh();
      const full = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w = await store.claimWindow(full, lease('a'));
      await store.commitPage(
        full,
        w as never,
        page([row('t1', T0 - 9), row('t2', T0 - 8)], T0, w as never),
        lease('a'),
      );
      await store.finishRun(full, T0);
      const incremental = await store.beginRun('incremental', T0 + DAY, [{ from: T0, to: T0 + DAY }]);
      const w2 = await store.claimWindow(incremental, lease('a'));
      await store.commitPage(incremental, w2 as never, page([], T0 + DAY, w2 as never), lease('a'));
      await store.endRun(incremental);
      expect(await store.claimOpenTasks(incremental, lease('b'), 10)).toEqual([]);
      expect(await store.claimWindow(incremental, lease('b'))).toBeUndefined();
      // Over, and said to be ended by another rather than completed.
      expect(await store.finishRun(incremental, T0 + DAY)).toEqual({
        finished: true,
        vanished: 0,
        superseded: true,
      });
      expect(await store.unfinishedRun()).toBeUndefined();
      // What it committed stays; the last run an incremental run reaches back to is still the full one.
      expect(Object.keys(await held(store)).sort()).toEqual(['t1', 't2']);
    });

    it('ends a run once, when no work is left; a full run marks what it did not see deleted and vanished', async () => {
      const store = await fresh();
      const first = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w1 = await store.claimWindow(first, lease('a'));
      await store.commitPage(
        first,
        w1 as never,
        page([row('a', T0 - 9), row('b', T0 - 8)], T0 - 8, w1 as never),
        lease('a'),
      );
      // Until a run completes, the copy holds part of the tenant: what idgov export warns of.
      expect(await store.hasCompletedRun()).toBe(false);
      expect(await store.status()).toEqual({
        tasks: { TASK_STATE_OPEN: 2 },
        deleted: 0,
        vanished: 0,
        lastCompletedRun: undefined,
        unfinishedRun: {
          kind: 'full',
          startedAt: at(T0),
          windowsDone: 1,
          windowsLeft: 0,
          pages: 1,
          tasks: 2,
        },
        lastSeq: 2,
        leases: { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 },
        syncProcess: kind.name.startsWith('SQLite')
          ? { pid: process.pid, host: hostname(), lastSeen: expect.any(String), gone: false }
          : undefined,
      });
      await store.finishRun(first, T0 + 1);
      expect(await store.hasCompletedRun()).toBe(true);
      expect(await store.status()).toMatchObject({
        lastCompletedRun: { kind: 'full', finishedAt: at(T0 + 1) },
        unfinishedRun: undefined,
      });

      const second = await store.beginRun('full', T0 + DAY, [{ from: T0 - DAY, to: T0 + DAY }]);
      const w2 = await store.claimWindow(second, lease('a'));
      expect(await store.finishRun(second, T0 + DAY)).toMatchObject({ finished: false, vanished: 0 });
      await store.commitPage(
        second,
        w2 as never,
        page([row('a', T0 - 9)], T0 + DAY, w2 as never),
        lease('a'),
      );
      // b, unseen, is asked for by ID first (the refresh): the service no longer has it.
      expect(await store.finishRun(second, T0 + DAY)).toMatchObject({ finished: false, vanished: 0 });
      expect(await store.claimOpenTasks(second, lease('a'), 10)).toEqual(['b']);
      expect(
        await store.commitRefresh(second, { tasks: [], vanished: ['b'], syncedAt: T0 + DAY }, lease('a')),
      ).toEqual({ new: 0, changed: 0, deleted: 1 });
      expect(await store.finishRun(second, T0 + DAY)).toEqual({ finished: true, vanished: 0 });
      expect(await store.finishRun(second, T0 + DAY)).toEqual({ finished: true, vanished: 0 });
      expect(await held(store)).toEqual({ a: 'TASK_STATE_OPEN', b: 'TASK_STATE_OPEN deleted vanished' });
      expect(await store.status()).toMatchObject({
        tasks: { TASK_STATE_OPEN: 1 },
        deleted: 1,
        vanished: 1,
        lastSeq: 3,
      });
      // That run's clock was a day ahead, and is put right: the next run finishes before it by the
      // clocks, and is still the last completed run (a stuck copy must not look current).
      const third = await store.beginRun('incremental', T0 + 2, [{ from: T0 - DAY, to: T0 + 2 }]);
      const w3 = await store.claimWindow(third, lease('a'));
      await store.commitPage(third, w3 as never, page([row('a', T0 - 9)], T0 + 2, w3 as never), lease('a'));
      expect(await store.finishRun(third, T0 + 2)).toEqual({ finished: true, vanished: 0 });
      expect((await store.status()).lastCompletedRun).toEqual({
        kind: 'incremental',
        finishedAt: at(T0 + 2),
      });
    });

    it('tells who is at work on the copy: leases held, leases that ran out, and on SQLite the process holding it', async () => {
      const store = await fresh();
      const none = { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 };
      expect((await store.status()).leases).toEqual(none);
      const first = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w1 = await store.claimWindow(first, lease('a'));
      expect((await store.status()).leases).toEqual({ ...none, windowsHeld: 1 });
      await store.commitPage(
        first,
        w1 as never,
        page([row('a', T0 - 9), row('b', T0 - 8)], T0 - 8, w1 as never),
        lease('a'),
      );
      // A window paged to its end is let go.
      expect((await store.status()).leases).toEqual(none);
      await store.finishRun(first, T0 + 1);

      const second = await store.beginRun('full', T0 + DAY, [
        { from: T0 - DAY, to: T0 },
        { from: T0, to: T0 + DAY },
      ]);
      const paging = await store.claimWindow(second, lease('paging'));
      await store.claimWindow(second, lease('killed while paging', 20));
      const sleep = () => new Promise((resolve) => setTimeout(resolve, 60));
      await sleep();
      const status = await store.status();
      expect(status.leases).toEqual({ ...none, windowsHeld: 1, windowsRanOut: 1 });
      if (kind.name.startsWith('SQLite')) {
        expect(status.syncProcess).toEqual({
          pid: process.pid,
          host: hostname(),
          lastSeen: expect.any(String),
          gone: false,
        });
        expect(Date.now() - Date.parse(status.syncProcess?.lastSeen ?? '')).toBeLessThan(60_000);
      } else {
        expect(status.syncProcess).toBeUndefined();
        // Its workers' leases are of the database server's clock: a reader's own clock, 20 s off
        // either way, changes nothing.
        const real = Date.now;
        for (const off of [20_000, -20_000]) {
          const skewed = vi.spyOn(Date, 'now').mockImplementation(() => real() + off);
          try {
            expect((await store.status()).leases).toEqual(status.leases);
          } finally {
            skewed.mockRestore();
          }
        }
      }
      // The window left behind is taken over; then the refresh of open tasks, under leases too.
      const left = await store.claimWindow(second, lease('taking over'));
      for (const [window, holder] of [
        [paging, 'paging'],
        [left, 'taking over'],
      ] as const) {
        await store.commitPage(second, window as never, page([], T0 + DAY, window as never), lease(holder));
      }
      expect(await store.claimOpenTasks(second, lease('refreshing'), 1)).toEqual(['a']);
      expect(await store.claimOpenTasks(second, lease('killed while refreshing', 20), 1)).toEqual(['b']);
      await sleep();
      expect((await store.status()).leases).toEqual({ ...none, tasksHeld: 1, tasksRanOut: 1 });
      // A sync that stops lets its leases go.
      await store.endLeases(['refreshing']);
      expect((await store.status()).leases).toEqual({ ...none, tasksRanOut: 1 });
    });

    it('tells, when opened, when the last run started, the first task, and the last run that saw the tasks acted on', async () => {
      const place = kind.place();
      const store = await fresh(place);
      const full = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w = await store.claimWindow(full, lease('a'));
      const closed = row('a', T0 - DAY + 7, { state: 'TASK_STATE_CLOSED' }); // no refresh to wait for
      await store.commitPage(full, w as never, page([closed], T0, w as never), lease('a'));
      await store.finishRun(full, T0);
      const acted = await store.beginRun('incremental', T0 + DAY, [
        { from: T0, to: T0 + DAY },
        { from: T0 - DAY, to: T0, actedAfter: T0 - 5 },
      ]);
      for (
        let w2 = await store.claimWindow(acted, lease('a'));
        w2;
        w2 = await store.claimWindow(acted, lease('a'))
      ) {
        await store.commitPage(acted, w2, page([], w2.to, w2), lease('a'));
      }
      expect((await store.finishRun(acted, T0 + DAY)).finished).toBe(true);
      const cut = await store.beginRun('incremental', T0 + 2 * DAY, [
        { from: T0 - DAY, to: T0, actedAfter: T0 + DAY - 5 },
      ]);
      const w3 = await store.claimWindow(cut, lease('a'));
      await store.commitPage(cut, w3 as never, { ...page([], T0, w3 as never), actedCut: true }, lease('a'));
      expect((await store.finishRun(cut, T0 + 2 * DAY)).finished).toBe(true);
      await store.close();
      const again = await kind.make(place);
      opened.push(again);
      expect(await again.open(identity)).toEqual({
        lastRunStartedAt: T0 + 2 * DAY,
        earliestCreatedAt: T0 - DAY + 7,
        actedSeenSince: T0 + DAY, // the run whose pass was cut short does not count
      });
    });

    it('reads the copy back by ID or oldest first, by state, deleted tasks only when asked', async () => {
      const store = await fresh();
      const run = await store.beginRun('full', T0, [{ from: T0 - DAY, to: T0 }]);
      const w = await store.claimWindow(run, lease('a'));
      await store.commitPage(
        run,
        w as never,
        page(
          [
            row('c', T0 - 30),
            row('a', T0 - 10, { state: 'TASK_STATE_CLOSED' }),
            row('b', T0 - 30),
            row('d', T0 - 20, { deleted: T0 - 1 }),
          ],
          T0,
          w as never,
        ),
        lease('a'),
      );
      const ids = async (query: Parameters<Store['rows']>[0]) => {
        const out: string[] = [];
        for await (const r of store.rows(query)) out.push(r.id);
        return out;
      };
      expect(await ids({})).toEqual(['a', 'b', 'c']);
      expect(await ids({ order: 'created', includeDeleted: true })).toEqual(['b', 'c', 'd', 'a']);
      expect(await ids({ state: TaskState.CLOSED })).toEqual(['a']);
      const typed = [];
      for await (const copied of store.tasks({ includeDeleted: true, order: 'created' })) typed.push(copied);
      expect(typed.map((c) => [c.task.id, c.deleted, c.vanished])).toEqual([
        ['b', false, false],
        ['c', false, false],
        ['d', true, false],
        ['a', false, false],
      ]);
      const first = (await store.rows({ order: 'created' }).next()).value;
      expect(first).toMatchObject({
        id: 'b',
        createdAt: at(T0 - 30),
        updatedAt: at(T0 - 30),
        vanished: false,
      });
      expect(JSON.parse(first?.json ?? '')).toMatchObject({ id: 'b', state: 'TASK_STATE_OPEN' });
    });
  });
}

/**
 * A copy under `name`, and another connection holding its write lock with a write under way
 * (`exclusive`: so that even opening the file waits), until it commits or rolls back.
 */
async function copyLockedByAnother(name: string, exclusive = false) {
  const path = join(dir, name);
  const made = new SqliteSyncStore({ path });
  await made.open(identity);
  await made.close();
  const { DatabaseSync } = await import('node:sqlite');
  const holder = new DatabaseSync(path);
  if (exclusive) holder.exec('PRAGMA locking_mode = EXCLUSIVE');
  holder.exec(exclusive ? 'BEGIN EXCLUSIVE' : 'BEGIN IMMEDIATE');
  holder.exec("INSERT INTO idgov_sync_meta (key, value) VALUES ('held', 'by another process')");
  return { path, holder };
}

describe('SQLite store stopped while another connection holds the lock', () => {
  it('gives up the wait once its signal aborts, not after busyTimeoutMs: a process told to stop stops', async () => {
    const { path, holder } = await copyLockedByAnother('locked-stop.db');
    const stop = new AbortController();
    const store = new SqliteSyncStore({ path, busyTimeoutMs: 60_000, signal: stop.signal });
    try {
      const started = performance.now();
      const waiting = caught(store.beginRun('full', Date.now(), []));
      setTimeout(() => stop.abort(), 300);
      const error = await waiting;
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toMatch(
        /the store is stopping, and gave up waiting for another connection's lock/,
      );
      // The wait was cut short by the signal: nowhere near the minute it would have waited.
      expect(performance.now() - started).toBeLessThan(30_000);
      // A careless caller's controller for its signal is refused, naming the fix.
      expect(() => new SqliteSyncStore({ path, signal: stop as unknown as AbortSignal })).toThrow(
        /signal must be an AbortSignal \(the controller's signal/,
      );
      // A wait past busyTimeoutMs says how long, and what holds the lock.
      const brief = new SqliteSyncStore({ path, busyTimeoutMs: 200 });
      const timedOut = await caught(brief.beginRun('full', Date.now(), []));
      await brief.close().catch(() => {});
      expect(timedOut).toBeInstanceOf(StoreError);
      expect((timedOut as StoreError).transient).toBe(true);
      expect((timedOut as Error).message).toMatch(
        /waited 200 ms \(busyTimeoutMs\) for another connection's lock .*another process is writing the task copy/,
      );
      // Without a stop, the same wait ends when the lock is let go, and the write is made.
      const patient = new SqliteSyncStore({ path, busyTimeoutMs: 60_000 });
      const later = patient.beginRun('full', Date.now(), []);
      setTimeout(() => holder.exec('COMMIT'), 300);
      expect((await later).kind).toBe('full');
      await patient.close();
    } finally {
      if (holder.isTransaction) holder.exec('ROLLBACK');
      holder.close();
      await store.close().catch(() => {});
    }
  });
});

it('a SQLite store stopped while another connection holds the lock still lets go of the copy on close: the next sync takes it at once', async () => {
  const path = join(dir, 'stopped-release.db');
  const stop = new AbortController();
  const first = new SqliteSyncStore({ path, signal: stop.signal });
  await first.open(identity);
  stop.abort();
  const { DatabaseSync } = await import('node:sqlite');
  const other = new DatabaseSync(path);
  other.exec('BEGIN IMMEDIATE');
  other.exec("INSERT INTO idgov_sync_meta (key, value) VALUES ('busy', 'a moment')");
  setTimeout(() => other.exec('COMMIT'), 400);
  try {
    await first.close();
    const next = new SqliteSyncStore({ path });
    await expect(next.open(identity)).resolves.toBeDefined();
    await next.close();
  } finally {
    if (other.isTransaction) other.exec('ROLLBACK');
    other.close();
  }
});

it("a SQLite copy's status is one snapshot: read while a first copy commits, its tasks always equal its feed", async () => {
  const { FakeTenant } = await import('../../src/testing/index.ts');
  const { IdGovClient } = await import('../../src/index.ts');
  const { TaskSync } = await import('../../src/sync/index.ts');
  const tenant = new FakeTenant({ history: 3_000, seed: 5, latencyMs: 15 });
  const { close, url } = await tenant.listen();
  const path = join(dir, 'status-snapshot.db');
  const writer = new SqliteSyncStore({ path });
  const client = new IdGovClient({ baseUrl: url, credentials: tenant.client });
  const sync = new TaskSync({ client, store: writer, concurrency: 4, pageSize: 50 });
  try {
    const running = sync.run();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reader = new SqliteSyncStore({ path, readOnly: true });
    const seen: string[] = [];
    for (let i = 0; i < 25; i++) {
      const status = await reader.status();
      const held = Object.values(status.tasks).reduce((sum, n) => sum + n, 0) + status.deleted;
      // A first copy writes one change a task: any other sum mixes two moments.
      if (held !== status.lastSeq) seen.push(`${held} tasks, feed through ${status.lastSeq}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await reader.close();
    await running;
    expect(seen).toEqual([]);
  } finally {
    await sync.close();
    await close();
  }
});

it("a SQLite copy's sync process: gone once ended on this machine, not where its PID is of another namespace; a row no sync wrote holds nothing", async () => {
  const path = join(dir, 'holders.db');
  const store = new SqliteSyncStore({ path });
  await store.open(identity);
  await store.close(); // lets the copy go
  const { DatabaseSync } = await import('node:sqlite');
  const ownedBy = (value: string) => {
    const db = new DatabaseSync(path);
    db.prepare(
      "INSERT INTO idgov_sync_meta (key, value) VALUES ('owner', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(value);
    db.close();
  };
  const syncProcess = async () => {
    const reader = new SqliteSyncStore({ path, readOnly: true });
    try {
      return (await reader.status()).syncProcess;
    } finally {
      await reader.close();
    }
  };
  const ended = spawnSync(process.execPath, ['-e', '0']).pid as number;
  const owner = (named: string) =>
    JSON.stringify({
      pid: ended,
      host: hostname(),
      since: at(Date.now()),
      holder: 'h',
      seen: Date.now(),
      process: named,
    });
  const here = thisProcess().replace(/^[\d.]+/, `${ended}`);
  ownedBy(owner(here));
  expect(await syncProcess()).toMatchObject({ pid: ended, gone: here.includes('#') });
  // Named by a system without /proc (macOS, Windows): its host and PID tell.
  ownedBy(owner(`${ended}@${hostname()}`));
  expect(await syncProcess()).toMatchObject({ pid: ended, gone: true });
  if (here.includes('#')) {
    // The same PID and hostname in another PID namespace (a container beside this one) may live.
    ownedBy(owner(here.replace(/#\d+/, '#1')));
    expect(await syncProcess()).toMatchObject({ pid: ended, gone: false });
  }
  for (const damaged of [
    'garbage',
    '42',
    '{"pid":1,"host":"h","holder":"x"}',
    '{"pid":"1","host":"h","holder":"x","seen":1}',
  ]) {
    ownedBy(damaged);
    expect(await syncProcess(), damaged).toBeUndefined();
    const taker = new SqliteSyncStore({ path });
    await taker.open(identity); // takes the copy
    await taker.close();
  }
});

it('a SQLite copy made before the change feed says it has none, where an empty feed says 0', async () => {
  const path = join(dir, 'no-feed.db');
  const store = new SqliteSyncStore({ path });
  await store.open(identity);
  expect((await store.status()).lastSeq).toBe(0);
  await store.close();
  const { DatabaseSync } = await import('node:sqlite');
  const old = new DatabaseSync(path);
  old.exec('DROP TABLE idgov_changes');
  old.close();
  const reader = new SqliteSyncStore({ path, readOnly: true });
  expect((await reader.status()).lastSeq).toBeUndefined();
  await reader.close();
});

it('a SQLite store stopped while it opens a file another connection holds exclusively gives up too', async () => {
  const { path, holder } = await copyLockedByAnother('exclusive.db', true);
  const stop = new AbortController();
  const store = new SqliteSyncStore({ path, busyTimeoutMs: 60_000, signal: stop.signal });
  try {
    const started = performance.now();
    const opening = caught(store.open(identity));
    setTimeout(() => stop.abort(), 300);
    expect(String(await opening)).toMatch(/the store is stopping/);
    expect(performance.now() - started).toBeLessThan(30_000);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
    await store.close().catch(() => {});
  }
});

describe("a SQLite store on the caller's thread (thread: false)", () => {
  it('is refused for a thread option that is not a boolean, naming it', () => {
    expect(
      () => new SqliteSyncStore({ path: join(dir, 'x.db'), thread: 'no' as unknown as boolean }),
    ).toThrow(/thread must be true .* or false/);
  });

  it('says a file it cannot open on every call, as a thread does, and still closes', async () => {
    // A directory where the file should be: neither kind of store can open it.
    const path = mkdtempSync(join(dir, 'not-a-file-'));
    const messages: string[] = [];
    for (const thread of [true, false]) {
      const store = new SqliteSyncStore({ path, thread });
      const first = await caught(store.open(identity));
      const again = await caught(store.unfinishedRun());
      expect(first).toBeInstanceOf(ConfigurationError);
      expect(first?.message).toContain(path);
      expect(again?.message).toBe(first?.message);
      messages.push(String(first?.message));
      await store.close();
      expect((await caught(store.open(identity)))?.message).toMatch(/is closed/);
    }
    expect(messages[1]).toBe(messages[0]);
  });

  it('answers the calls made before close, in both kinds, and refuses those made after', async () => {
    for (const thread of [true, false]) {
      const store = new SqliteSyncStore({ path: join(dir, `close-${crypto.randomUUID()}.db`), thread });
      const opened = store.open(identity);
      const run = store.unfinishedRun();
      const closed = store.close();
      const after = caught(store.unfinishedRun());
      await expect(opened).resolves.toMatchObject({ lastRunStartedAt: undefined });
      await expect(run).resolves.toBeUndefined();
      await closed;
      expect((await after)?.message).toMatch(/is closed/);
    }
  });

  it('holds the copy against another process as a thread does, and lets it go on close', async () => {
    const path = join(dir, `here-${crypto.randomUUID()}.db`);
    const here = new SqliteSyncStore({ path, thread: false });
    await here.open(identity);
    const other = new SqliteSyncStore({ path });
    try {
      // The same process's other store is another holder: refused while this one holds the copy.
      expect((await caught(other.open(identity)))?.message).toMatch(/Another sync .* is running on/);
      await here.close();
      await expect(other.open(identity)).resolves.toBeDefined();
    } finally {
      await other.close();
    }
  });
});
