/**
 * The change feed, on every store: one row per real change to the copy, of the right kind, none for
 * a fetch that changes nothing; read from a saved position, by kind, followed live, pruned; and the
 * whole feed folded from `seq` 0 is the copy. On PostgreSQL, a reader following the feed while four
 * workers commit sees every change once, in order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, IdGovClient } from '../../src/index.ts';
import { StoreError } from '../../src/stores/store-error.ts';
import { type ChangeBatch, readChangeRecords } from '../../src/sync/changes.ts';
import {
  type ChangeRecord,
  ChangesAheadError,
  ChangesPrunedError,
  type ExpandedRow,
  type SyncWindow,
  type TaskRow,
  TaskSync,
} from '../../src/sync/index.ts';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { caught } from '../helpers/caught.ts';
import { all, asFolded, byTask, copyAndFeed, expectedChanges, fold } from '../helpers/change-feed.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { whileRowsHeld } from '../helpers/rows-held.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-changes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL change feed tests: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

type Store = SqliteSyncStore | PostgresSyncStore;
type FeedStart = 'all' | 'after-first-copy';

let n = 0;
/** Stores of each kind: `make` a new copy; `reopen` the copy made last, in another store (a process resumed). */
const kinds: Array<{
  name: string;
  skip: boolean;
  make(changeFeed?: FeedStart): Promise<Store>;
  reopen(changeFeed?: FeedStart): Promise<Store>;
}> = [
  {
    name: 'SQLite',
    skip: false,
    make: async (changeFeed) => new SqliteSyncStore({ path: join(dir, `feed-${++n}.db`), changeFeed }),
    reopen: async (changeFeed) => new SqliteSyncStore({ path: join(dir, `feed-${n}.db`), changeFeed }),
  },
  {
    name: 'PostgreSQL',
    skip: !pg,
    make: async (changeFeed) => {
      ++n;
      return kinds[1]?.reopen(changeFeed) as Promise<Store>;
    },
    reopen: async (changeFeed) => {
      const store = new PostgresSyncStore({
        connectionString: pg?.url,
        table: `${pg?.schema}.feed_${n}`,
        logLevel: 'error',
        changeFeed,
      });
      await store.migrate();
      return store;
    },
  },
];

/** Resolves once `done()` holds, or after 5 s (the assertions that follow then say what is missing). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const copyOf = async (store: Store) => asFolded(await all(store.rows({ includeDeleted: true })));

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`the change feed on ${kind.name}`, () => {
    const tenant = new FakeTenant({ tasks: 600, seed: 41 });
    let close: () => Promise<void>;
    let client: IdGovClient;
    beforeAll(async () => {
      ({ close } = await tenant.listen());
      client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'off' });
    });
    afterAll(() => close());

    /** Runs `store`'s sync once, and returns the feed's rows it wrote, and the copy before and after. */
    async function runAndRead(store: Store, sync: TaskSync, options: { full?: boolean } = {}) {
      const before = await copyOf(store);
      const last = (await all(store.changeRows())).at(-1)?.seq ?? 0;
      const summary = await sync.run(options);
      expect(summary.complete).toBe(true);
      const written = await all(store.changeRows({ after: last }));
      return { written, expected: expectedChanges(before, await copyOf(store)) };
    }

    it('writes one row per real change, of its kind, and none for a fetch that finds the task as it was', async () => {
      const store = await kind.make();
      const sync = new TaskSync({ client, store, concurrency: 3 });
      try {
        const first = await runAndRead(store, sync);
        expect(first.written).toHaveLength(tenant.tasks.length);
        expect(byTask(first.written)).toEqual(first.expected);
        expect(first.written.every((c) => c.kind === 'created')).toBe(true);

        // Every kind of change the service makes between runs, and tasks the service forgets.
        tenant.closeTasks(6);
        tenant.createTasks(5);
        tenant.deleteTasks(4, (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt);
        tenant.commentOnTasks(3, (task) => !task.deletedAt);
        tenant.purgeTasks(2, (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt);
        const second = await runAndRead(store, sync);
        expect(byTask(second.written)).toEqual(second.expected);
        expect(new Set(second.written.map((c) => c.kind))).toEqual(
          new Set(['created', 'changed', 'deleted', 'vanished']),
        );
        // A change says the state before and after, and carries the task after it.
        for (const change of second.written) {
          const now = (await copyOf(store)).get(change.taskId);
          expect(JSON.parse(change.json)).toEqual(now?.task);
          if (change.kind === 'created') expect(change.previousState).toBeUndefined();
          else expect(change.previousState).toMatch(/^TASK_STATE_/);
        }

        // Nothing changed: an incremental run and a full one write nothing.
        expect((await runAndRead(store, sync)).written).toEqual([]);
        expect((await runAndRead(store, sync, { full: true })).written).toEqual([]);

        // A full run marks the tasks the service forgot vanished, once.
        tenant.purgeTasks(3, (task) => task.state !== 'TASK_STATE_OPEN');
        const full = await runAndRead(store, sync, { full: true });
        expect(byTask(full.written)).toEqual(full.expected);
        expect(full.written.map((c) => c.kind)).toEqual(['vanished', 'vanished', 'vanished']);

        // Folding the whole feed from seq 0 gives the copy, and seq only grows.
        const feed = await all(store.changeRows());
        expect(fold(feed)).toEqual(await copyOf(store));
        expect(feed.map((c) => c.seq)).toEqual(feed.map((_, i) => i + 1));
      } finally {
        await sync.close();
      }
    }, 60_000);

    it('a deleted task the service then forgets is vanished in the feed, but not counted as newly deleted', async () => {
      const store = await kind.make();
      const sync = new TaskSync({ client, store, concurrency: 2 });
      try {
        await sync.run({ full: true });
        const deleted = tenant.deleteTasks(2, (task) => !task.deletedAt);
        expect((await sync.run({ full: true })).tasksDeleted).toBe(2);
        const ids = new Set(deleted.map((task) => task.id));
        tenant.purgeTasks(2, (task) => ids.has(task.id));
        const alive = tenant.purgeTasks(1, (task) => !task.deletedAt);
        const last = (await all(store.changeRows())).at(-1)?.seq ?? 0;
        // Of the three found gone, only the task that was not deleted before is newly deleted.
        expect((await sync.run({ full: true })).tasksDeleted).toBe(1);
        expect(byTask(await all(store.changeRows({ after: last })))).toEqual(
          new Map([...deleted, ...alive].map((task) => [task.id as string, 'vanished'])),
        );
      } finally {
        await sync.close();
      }
    }, 60_000);

    it("with changeFeed 'after-first-copy', the first copy writes no row and later changes are written", async () => {
      const store = await kind.make('after-first-copy');
      const sync = new TaskSync({ client, store, concurrency: 2 });
      try {
        expect((await runAndRead(store, sync)).written).toEqual([]);
        const copied = await copyOf(store);
        tenant.closeTasks(3);
        const next = await runAndRead(store, sync);
        expect(next.written.length).toBeGreaterThan(0);
        expect(byTask(next.written)).toEqual(next.expected);
        // The copy as the first run left it, with the feed applied on top, is the copy now.
        const rebuilt = new Map([...copied, ...fold(await all(store.changeRows()))]);
        expect(rebuilt).toEqual(await copyOf(store));
      } finally {
        await sync.close();
      }
    }, 60_000);

    it.each([
      ['after-first-copy', 'all'],
      ['all', 'after-first-copy'],
    ] as const)(
      "a first run begun with changeFeed '%s' and resumed with '%s' goes on as it began",
      async (began, resumedWith) => {
        const store = await kind.make(began);
        const stop = new AbortController();
        const first = new TaskSync({
          client,
          store,
          concurrency: 2,
          hooks: { progress: (p) => void (p.pages >= 2 && stop.abort()) },
        });
        expect((await first.run({ signal: stop.signal })).complete).toBe(false);
        await first.close();
        const again = await kind.reopen(resumedWith);
        const resumed = new TaskSync({ client, store: again, concurrency: 2 });
        try {
          expect(await resumed.run()).toMatchObject({ resumed: true, complete: true });
          const written = await all(again.changeRows());
          // Never half of a first copy: the whole of it, or none.
          if (began === 'all') expect(fold(written)).toEqual(await copyOf(again));
          else expect(written).toEqual([]);
        } finally {
          await resumed.close();
        }
      },
      60_000,
    );

    it('reads from a saved position and by kind, typed; follows new changes until its signal aborts', async () => {
      const store = await kind.make();
      const sync = new TaskSync({ client, store, concurrency: 2 });
      try {
        await sync.run();
        const feed = await all(store.changeRows());
        const middle = feed[Math.floor(feed.length / 2)] as ChangeRecord;
        expect((await all(store.changeRows({ after: middle.seq }))).map((c) => c.seq)).toEqual(
          feed.filter((c) => c.seq > middle.seq).map((c) => c.seq),
        );
        const positions: number[] = [];
        const deleted = await all(
          store.changes({ kinds: ['deleted'], onPosition: (seq) => positions.push(seq) }),
        );
        expect(deleted.length).toBe(feed.filter((c) => c.kind === 'deleted').length);
        // Told where to go on from: the whole feed read, whatever the kind of its last change.
        expect(positions.at(-1)).toBe(feed.at(-1)?.seq);
        for (const change of deleted) {
          expect(change.task.id).toBe(change.taskId);
          expect(change.at).toBeInstanceOf(Date);
          expect(change.task.deletedAt).toBeDefined();
        }

        // A follower that has read everything waits, and sees the next run's changes as they commit.
        const abort = new AbortController();
        const seen: ChangeRecord[] = [];
        const last = feed.at(-1)?.seq ?? 0;
        const following = (async () => {
          for await (const change of store.changeRows({
            after: last,
            follow: true,
            pollMs: 20,
            signal: abort.signal,
          })) {
            seen.push(change);
          }
        })();
        const closed = tenant.closeTasks(4);
        await sync.run();
        const written = await all(store.changeRows({ after: last }));
        await until(() => seen.length >= written.length);
        abort.abort();
        await following; // ends quietly on abort
        expect(seen).toEqual(written);
        expect(new Set(seen.map((c) => c.taskId))).toEqual(new Set(closed.map((t) => t.id)));
      } finally {
        await sync.close();
      }
    }, 60_000);

    it('prunes changes before a seq, and never hands a pruned seq out again', async () => {
      const store = await kind.make();
      const sync = new TaskSync({ client, store, concurrency: 2 });
      try {
        await sync.run();
        const last = (await all(store.changeRows())).at(-1)?.seq ?? 0;
        expect(await store.pruneChanges(11)).toBe(10);
        expect((await all(store.changeRows())).at(0)?.seq).toBe(11);
        // A reader that had read to seq 4 would pass over 5 to 10: told so, by a typed error.
        const behind = await caught(all(store.changeRows({ after: 4 })));
        expect(behind).toBeInstanceOf(ChangesPrunedError);
        expect(behind).toMatchObject({ after: 4, lastPruned: 10 });
        expect((behind as Error).message).toMatch(/changes 5 to 10 of the change feed were pruned/);
        // One that had read to 10 follows on; one from 0 reads what is left.
        expect((await all(store.changeRows({ after: 10 }))).at(0)?.seq).toBe(11);
        expect((await all(store.changes({ after: 0 }))).at(0)?.seq).toBe(11);
        // A before past the end is a mistyped one: refused, nothing deleted.
        await expect(store.pruneChanges(last * 10)).rejects.toThrow(
          new RegExp(
            `before \\(${last * 10}\\) is past the end of the change feed: its last change is seq ${last}, so ${last + 1} prunes every change`,
          ),
        );
        expect((await all(store.changeRows())).at(0)?.seq).toBe(11);
        expect(await store.pruneChanges(last + 1)).toBe(last - 10);
        expect(await all(store.changeRows())).toEqual([]);
        // Pruned to the end of the feed: a reader behind it is told too, not left to believe itself current.
        const lagging = await caught(all(store.changeRows({ after: 20, kinds: ['deleted'] })));
        expect(lagging).toMatchObject({ name: 'ChangesPrunedError', after: 20, lastPruned: last });
        expect(await all(store.changeRows({ after: last }))).toEqual([]);
        tenant.closeTasks(2);
        await sync.run();
        const after = await all(store.changeRows());
        expect(after.length).toBeGreaterThan(0);
        expect(after.every((c) => c.seq > last)).toBe(true);
      } finally {
        await sync.close();
      }
    }, 60_000);

    it('a reader past the end of the feed (the copy made again) is told so, with where this feed ends', async () => {
      const old = await kind.make();
      const remade = await kind.make();
      const first = new TaskSync({ client, store: old, concurrency: 2 });
      const second = new TaskSync({ client, store: remade, concurrency: 2 });
      try {
        await first.run();
        tenant.closeTasks(3);
        await first.run();
        const position = (await all(old.changeRows())).at(-1)?.seq ?? 0;
        // The same tenant copied anew: its feed numbers from 1 again, and ends before the position.
        tenant.purgeTasks(5);
        await second.run();
        const last = (await all(remade.changeRows())).at(-1)?.seq ?? 0;
        expect(last).toBeLessThan(position);
        const ahead = await caught(all(remade.changeRows({ after: position, follow: true })));
        expect(ahead).toBeInstanceOf(ChangesAheadError);
        expect(ahead).toMatchObject({ after: position, last });
        expect((ahead as Error).message).toMatch(
          new RegExp(
            `at seq ${position}, past the end of the change feed \\(its last change is seq ${last}\\)`,
          ),
        );
        // At the end, or behind it, reads on.
        expect(await all(remade.changeRows({ after: last }))).toEqual([]);
        expect((await all(remade.changeRows({ after: last - 1 }))).map((c) => c.seq)).toEqual([last]);
      } finally {
        await first.close();
        await second.close();
      }
    }, 60_000);

    it('refuses a bad position, kind or interval, naming the field, before reading anything', async () => {
      const store = await kind.make();
      try {
        const bad = [
          () => store.changes({ after: -1 }),
          () => store.changes({ after: 1.5 }),
          () => store.changeRows({ kinds: ['closed' as 'created'] }),
          () => store.changes({ follow: true, pollMs: 0 }),
          () => store.changes({ follow: true, pollMs: 2 ** 31 }),
          () => store.changeRows({ kinds: 'deleted' as unknown as ['deleted'] }),
        ];
        const messages = bad.map((call) => {
          try {
            call();
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigurationError);
            return (error as Error).message;
          }
          return 'no error';
        });
        expect(messages[0]).toMatch(/after must be a seq .* \(got -1\)/);
        expect(messages[1]).toMatch(/after must be .* \(got 1\.5\)/);
        expect(messages[2]).toMatch(/kinds may hold created, changed, deleted, vanished \(got closed\)/);
        expect(messages[3]).toMatch(/pollMs must be/);
        // Past the longest a timer holds, setTimeout would fire at once: a loop of reads.
        expect(messages[4]).toMatch(
          /pollMs must be a whole number of ms from 1 to 2147483647 \(got 2147483648\)/,
        );
        expect(messages[5]).toMatch(/kinds must be an array of change kinds.*\(got "deleted"\)/);
        await expect(store.pruneChanges(Number.NaN)).rejects.toThrow(/before must be a seq/);
      } finally {
        await store.close();
      }
    });
  });
}

describe('a SQLite copy read while another process may sync it', () => {
  it('prunes a feed of tens of thousands of changes a batch a transaction: all of them, the rest kept', async () => {
    const path = join(dir, 'long-feed.db');
    const made = new SqliteSyncStore({ path });
    expect(await all(made.changeRows())).toEqual([]);
    await made.close();
    const db = new DatabaseSync(path);
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25000)
      INSERT INTO idgov_changes (kind, task_id, at, previous_state, state, task)
      SELECT 'created', 'task-' || i, '2026-01-01T00:00:00.000Z', NULL, 'TASK_STATE_OPEN', '{}' FROM n`);
    db.close();
    const store = new SqliteSyncStore({ path });
    try {
      expect(await store.pruneChanges(20_001)).toBe(20_000);
      const left = await all(store.changeRows());
      expect(left).toHaveLength(5_000);
      expect(left[0]?.seq).toBe(20_001);
    } finally {
      await store.close();
    }
  });

  it('opened readOnly, reads the feed but refuses to prune it; a copy without a feed says how to add one', async () => {
    const tenant = new FakeTenant({ tasks: 50, seed: 43 });
    const { close } = await tenant.listen();
    const path = join(dir, 'read-only.db');
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'off' });
    const sync = new TaskSync({ client, store: new SqliteSyncStore({ path }) });
    await sync.run();
    await sync.close();
    await close();
    const reader = new SqliteSyncStore({ path, readOnly: true });
    try {
      expect(await all(reader.changeRows())).toHaveLength(50);
      await expect(reader.pruneChanges(10)).rejects.toThrow(
        /opened with readOnly: open it without readOnly to prune/,
      );
    } finally {
      await reader.close();
    }
    // As a copy made by an earlier release has it: no feed table.
    const db = new DatabaseSync(path);
    db.exec('DROP TABLE idgov_changes');
    db.close();
    const old = new SqliteSyncStore({ path, readOnly: true });
    try {
      await expect(all(old.changeRows())).rejects.toThrow(
        /without a change feed \(made by an older @idgov\/sdk\): run `idgov sync --db .*read-only\.db` once/,
      );
    } finally {
      await old.close();
    }
  });
});

describe.skipIf(!pg)('PostgreSQL: four workers commit while a reader follows the feed', () => {
  it('the reader sees every change once, in seq order, none passed over by a slower commit', async () => {
    // Small pages and many cursors: commits overlap all the time; the follower looks every 5 ms.
    const tenant = new FakeTenant({ history: 3_000, seed: 44 });
    const { close } = await tenant.listen();
    const table = `${pg?.schema}.feed_workers`;
    const store = () => new PostgresSyncStore({ connectionString: pg?.url, table, logLevel: 'error' });
    const reader = store();
    await reader.migrate();
    const abort = new AbortController();
    const seen: ChangeRecord[] = [];
    const following = (async () => {
      for await (const change of reader.changeRows({ follow: true, pollMs: 5, signal: abort.signal }))
        seen.push(change);
    })();
    try {
      const workers = Array.from({ length: 4 }, () => {
        const client = new IdGovClient({
          baseUrl: tenant.baseUrl,
          credentials: tenant.client,
          logLevel: 'off',
        });
        return new TaskSync({ client, store: store(), concurrency: 4, pageSize: 20 });
      });
      const summaries = await Promise.all(workers.map((w) => w.run()));
      expect(summaries.every((s) => s.complete)).toBe(true);
      tenant.closeTasks(40);
      tenant.createTasks(60);
      tenant.deleteTasks(20, (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt);
      await Promise.all(workers.map((w) => w.run()));
      for (const w of workers) await w.close();
      const feed = await all(reader.changeRows());
      await until(() => seen.length >= feed.length);
      abort.abort();
      await following;
      expect(seen.map((c) => c.seq)).toEqual(feed.map((c) => c.seq));
      expect(feed.map((c) => c.seq)).toEqual(feed.map((_, i) => i + 1));
      expect(fold(feed)).toEqual(asFolded(await all(reader.rows({ includeDeleted: true }))));
    } finally {
      abort.abort();
      await following;
      await reader.close();
      await close();
    }
  }, 120_000);
});

describe('a follower of the feed', () => {
  const change = (seq: number): ChangeRecord => ({
    seq,
    kind: 'created',
    taskId: `task-${seq}`,
    at: new Date(0).toISOString(),
    previousState: undefined,
    state: 'TASK_STATE_OPEN',
    json: '{}',
  });

  const batch = (records: ChangeRecord[], limit = 500): ChangeBatch => ({
    records,
    through: records.at(-1)?.seq,
    first: records[0]?.seq,
    full: records.length === limit,
  });

  it('waits out a store failure that passes (a database restarting), and ends at once on any other', async () => {
    let calls = 0;
    const flaky = async (after: number) => {
      calls += 1;
      if (calls === 2 || calls === 3) throw new StoreError('restarting', { transient: true });
      return batch(after < 2 ? [change(after + 1)] : []);
    };
    const abort = new AbortController();
    const seen: number[] = [];
    for await (const c of readChangeRecords(flaky, { follow: true, pollMs: 5, signal: abort.signal })) {
      seen.push(c.seq);
      if (c.seq === 2) abort.abort();
    }
    expect(seen).toEqual([1, 2]);
    expect(calls).toBeGreaterThanOrEqual(4);

    const broken = async () => {
      throw new StoreError('no such table', { transient: false });
    };
    await expect(all(readChangeRecords(broken, { follow: true, pollMs: 5 }))).rejects.toThrow(
      'no such table',
    );
    // Without follow, a reader is told of any failure at once.
    const once = async () => {
      throw new StoreError('restarting', { transient: true });
    };
    await expect(all(readChangeRecords(once, {}))).rejects.toThrow('restarting');
  });

  it('gives up an outage half a minute after it began, by the monotonic clock: a wall clock put back does not stretch it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    try {
      const down = async (): Promise<ChangeBatch> => {
        throw new StoreError('restarting', { transient: true });
      };
      let ended: unknown = 'still waiting';
      all(readChangeRecords(down, { follow: true, pollMs: 1_000 })).then(
        () => {
          ended = 'ended';
        },
        (error: unknown) => {
          ended = error;
        },
      );
      await vi.advanceTimersByTimeAsync(10_000);
      // NTP puts the clock back an hour, ten seconds into the outage.
      vi.setSystemTime(Date.now() - 3_600_000);
      await vi.advanceTimersByTimeAsync(25_000);
      expect(ended).toBeInstanceOf(StoreError);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends when its signal aborts while a read never answers (a connection gone half-open)', async () => {
    const abort = new AbortController();
    let reads = 0;
    const hung = () => {
      reads += 1;
      return reads === 1 ? Promise.resolve(batch([change(1)])) : new Promise<ChangeBatch>(() => {});
    };
    const seen: number[] = [];
    const following = (async () => {
      for await (const c of readChangeRecords(hung, { follow: true, pollMs: 5, signal: abort.signal }))
        seen.push(c.seq);
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads).toBe(2);
    abort.abort();
    await expect(following).resolves.toBeUndefined();
    expect(seen).toEqual([1]);
  });

  it('of some kinds moves past the rows of others: each read starts where the last one looked', async () => {
    // 1,200 rows: a deleted task at seq 1,100, the rest created.
    const afters: number[] = [];
    const read = async (after: number, limit: number, kinds: readonly string[] | undefined) => {
      afters.push(after);
      const rows = Array.from({ length: Math.max(0, Math.min(limit, 1_200 - after)) }, (_, i) => ({
        ...change(after + i + 1),
        kind: after + i + 1 === 1_100 ? ('deleted' as const) : ('created' as const),
      }));
      return {
        records: rows.filter((row) => !kinds || kinds.includes(row.kind)),
        through: rows.at(-1)?.seq,
        first: rows[0]?.seq,
        full: rows.length === limit,
      };
    };
    const found = await all(readChangeRecords(read, { kinds: ['deleted'] }));
    expect(found.map((c) => c.seq)).toEqual([1_100]);
    expect(afters).toEqual([0, 500, 1_000]);
  });
});

describe.skipIf(!pg)('PostgreSQL: two workers commit the same task at once', () => {
  // A task on a window's edge, or paged by a window and by the part split off it while a page was in
  // flight, reaches two commits. The second one's upsert waits for the first's lock on the task:
  // its change is judged against the row the first committed, not the one it saw when it began.
  /** A copy whose run has two windows, each claimed by a lease of its own; `page(i, ...)` is a page of window i. */
  async function twoWindows() {
    const { default: Pg } = await import('pg');
    const pool = new Pg.Pool({ connectionString: pg?.url, max: 4 });
    const table = `${pg?.schema}.race_${++n}`;
    const store = new PostgresSyncStore({ pool, table });
    await store.migrate();
    await store.open({ baseUrl: 'https://acme.example.com', filter: '{}' });
    const run = await store.beginRun('full', Date.now(), [
      { from: 0, to: 1_000 },
      { from: 1_001, to: 2_000 },
    ]);
    const leases = [
      { holder: 'A', ms: 60_000 },
      { holder: 'B', ms: 60_000 },
    ] as const;
    const windows = [await store.claimWindow(run, leases[0]), await store.claimWindow(run, leases[1])];
    const page = (i: 0 | 1, tasks: TaskRow[], expanded: ExpandedRow[] = []) => ({
      tasks,
      expanded,
      cursor: (windows[i]?.from ?? 0) + 1,
      moved: true,
      queryFrom: windows[i]?.from ?? 0,
      queryTo: windows[i]?.to ?? 0,
      token: 'next',
      exhausted: false,
      syncedAt: Date.now(),
    });
    const commit = (i: 0 | 1, tasks: TaskRow[], expanded: ExpandedRow[] = []) =>
      store.commitPage(run, windows[i] as SyncWindow, page(i, tasks, expanded), leases[i]);
    return { pool, table, store, commit };
  }

  async function race(first: string | undefined, a: string, b: string) {
    const { pool, table, store, commit } = await twoWindows();
    const task = (v: string): TaskRow[] => [
      {
        id: 'X',
        state: 'TASK_STATE_OPEN',
        createdAt: '1970-01-01T00:00:01.000Z',
        updatedAt: undefined,
        deletedAt: undefined,
        json: JSON.stringify({ id: 'X', state: 'TASK_STATE_OPEN', v }),
      },
    ];
    if (first !== undefined) await commit(0, task(first));
    // The counter held: A's statement waits there holding X; B's begins meanwhile, and waits for X.
    const ended = await whileRowsHeld(
      pool,
      `SELECT 1 FROM ${table}_sync_meta WHERE key = 'changes_seq' FOR UPDATE`,
      [() => commit(0, task(a)), () => commit(1, task(b))],
    );
    expect(ended).toEqual(['fulfilled', 'fulfilled']);
    const result = await copyAndFeed(store);
    await pool.end();
    return result;
  }

  // Pages whose rows overlap: the objects every page expands; tasks with no creation time, which
  // every window writes (as a task at a window's edge may reach two commits).
  const rowsOf = {
    objects: (ids: string[]) => ({
      tasks: [],
      expanded: ids.map((id) => ({ type: 'type.example/User', id, json: `{"id":"${id}"}` })),
      table: 'expanded',
    }),
    tasks: (ids: string[]) => ({
      tasks: ids.map((id) => ({
        id,
        state: 'TASK_STATE_OPEN',
        createdAt: undefined,
        updatedAt: undefined,
        deletedAt: undefined,
        json: JSON.stringify({ id, state: 'TASK_STATE_OPEN' }),
      })),
      expanded: [],
      table: 'tasks',
    }),
  };

  it.each(Object.keys(rowsOf) as Array<keyof typeof rowsOf>)(
    'two pages writing the same %s in opposite orders wait for each other, not deadlock',
    async (what) => {
      const { pool, table, store, commit } = await twoWindows();
      const rows = (ids: string[]) => rowsOf[what](ids);
      const write = (i: 0 | 1, ids: string[]) => commit(i, rows(ids).tasks, rows(ids).expanded);
      await write(0, ['a', 'b']);
      // b held by another transaction: B's page (b, then a) waits for it first; then A's page locks
      // a and waits for b too. Once b is let go, B's page goes on to a, which A's holds: locked in
      // the pages' orders, each would wait for the other.
      const ended = await whileRowsHeld(
        pool,
        `SELECT 1 FROM ${table}_${rows([]).table} WHERE id = 'b' FOR UPDATE`,
        [() => write(1, ['b', 'a']), () => write(0, ['a', 'b'])],
      );
      expect(ended).toEqual(['fulfilled', 'fulfilled']);
      await store.close();
      await pool.end();
    },
  );

  it('a new task committed by both is created once', async () => {
    const { copy, feed } = await race(undefined, 'same', 'same');
    expect(feed.map((c) => c.kind)).toEqual(['created']);
    expect(fold(feed)).toEqual(copy);
  });

  it('a change undone by the slower commit is in the feed, which still folds to the copy', async () => {
    const { copy, feed } = await race('v1', 'v2', 'v1');
    expect(feed.map((c) => [c.kind, JSON.parse(c.json).v])).toEqual([
      ['created', 'v1'],
      ['changed', 'v2'],
      ['changed', 'v1'],
    ]);
    expect(fold(feed)).toEqual(copy);
  });
});

describe.skipIf(!pg)('PostgreSQL workers given different changeFeed settings', () => {
  // Each worker's first commit judged the setting by what its own snapshot held: one that saw no
  // task and was given `all` recorded its page, while one given `after-first-copy`, committing at
  // the same time, did not; every commit after recorded its page. Half of a first copy in the feed.
  it.each([
    ['all', 'after-first-copy'],
    ['after-first-copy', 'all'],
  ] as const)(
    "follow the one that began the first run ('%s', joined with '%s'), whichever commits first",
    async (began, joined) => {
      const { default: Pg } = await import('pg');
      const pool = new Pg.Pool({ connectionString: pg?.url, max: 4 });
      const table = `${pg?.schema}.mixed_${++n}`;
      const worker = (changeFeed: FeedStart) => new PostgresSyncStore({ pool, table, changeFeed });
      const first = worker(began);
      const second = worker(joined);
      await first.migrate();
      const identity = { baseUrl: 'https://acme.example.com', filter: '{}' };
      await first.open(identity);
      await second.open(identity);
      const run = await first.beginRun('full', Date.now(), [
        { from: 0, to: 1_000 },
        { from: 1_001, to: 2_000 },
      ]);
      expect(await second.beginRun('full', Date.now(), [{ from: 0, to: 2_000 }])).toMatchObject({
        id: run.id,
      });
      const stores = [first, second] as const;
      const leases = [
        { holder: 'first', ms: 60_000 },
        { holder: 'second', ms: 60_000 },
      ] as const;
      const windows = [await first.claimWindow(run, leases[0]), await second.claimWindow(run, leases[1])];
      const commit = (i: 0 | 1) => {
        const window = windows[i] as SyncWindow;
        const id = `task-${i}`;
        return stores[i].commitPage(
          run,
          window,
          {
            tasks: [
              {
                id,
                state: 'TASK_STATE_OPEN',
                createdAt: new Date(window.from + 1).toISOString(),
                updatedAt: undefined,
                deletedAt: undefined,
                json: JSON.stringify({ id, state: 'TASK_STATE_OPEN' }),
              },
            ],
            expanded: [],
            cursor: window.from + 1,
            moved: true,
            queryFrom: window.from,
            queryTo: window.to,
            token: 'next',
            exhausted: false,
            syncedAt: Date.now(),
          },
          leases[i],
        );
      };
      // The feed's counter held: both first commits begin on a copy with no task; a commit that
      // records waits there, one that does not commits at once.
      const byAll = began === 'all' ? 0 : 1;
      const ended = await whileRowsHeld(
        pool,
        `SELECT 1 FROM ${table}_sync_meta WHERE key = 'changes_seq' FOR UPDATE`,
        [() => commit(byAll), () => commit(byAll === 0 ? 1 : 0)],
      );
      expect(ended).toEqual(['fulfilled', 'fulfilled']);
      const { copy, feed } = await copyAndFeed(second);
      expect(copy.size).toBe(2);
      if (began === 'all') expect(fold(feed)).toEqual(copy);
      else expect(feed).toEqual([]);
      await first.close();
      await pool.end();
    },
  );
});

describe.skipIf(!pg)('a PostgreSQL copy made before the feed', () => {
  it('is read with a ConfigurationError that names the missing feed table and the fix', async () => {
    const table = `${pg?.schema}.before_feed`;
    const store = new PostgresSyncStore({ connectionString: pg?.url, table, logLevel: 'error' });
    try {
      await store.migrate();
      const { default: Pg } = await import('pg');
      const db = new Pg.Client({ connectionString: pg?.url });
      await db.connect();
      await db.query(`DROP TABLE ${table}_changes`);
      await db.end();
      const refused = all(store.changeRows());
      await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
      await expect(all(store.changeRows())).rejects.toThrow(
        /before_feed_changes"? does not exist: the copy was made by an earlier release\. Run store\.migrate\(\) once/,
      );
      await expect(store.pruneChanges(5)).rejects.toThrow(/before_feed_changes"? does not exist/);
    } finally {
      await store.close();
    }
  });
});
