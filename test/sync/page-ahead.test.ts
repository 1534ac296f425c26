/**
 * A cursor asks for its window's next page while the last one commits, so that it waits on the
 * service alone: the commit still comes first (a page is written only after the one before it),
 * and a commit that fails leaves the page asked for ahead unwritten, and no rejection unhandled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { IdGovClient } from '../../src/index.ts';
import { type PageCommitResult, type SyncStore, TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeData, FakeTenant } from '../../src/testing/index.ts';
import { caught } from '../helpers/caught.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Commit = SyncStore['commitPage'];

/** `store` with its `commitPage` run through `commit`: it gets the real one, its call's number and arguments. */
function withCommit(
  store: SyncStore,
  commit: (real: () => ReturnType<Commit>, n: number, args: Parameters<Commit>) => ReturnType<Commit>,
): SyncStore {
  let n = 0;
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'commitPage') {
        return (...args: Parameters<Commit>) => commit(() => target.commitPage(...args), ++n, args);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A sync of one cursor, and the number of searches it has sent, and had answered, so far. */
function oneCursor(tenant: FakeTenant, store: SyncStore) {
  const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' });
  let searches = 0;
  let answered = 0;
  client.hooks.on('request', (event) => {
    if (event.attempt === 1 && event.path.includes('search')) searches += 1;
  });
  client.hooks.on('requestEnd', (event) => {
    if (event.path.includes('search') && event.status === 200) answered += 1;
  });
  const sync = new TaskSync({ client, store, concurrency: 1, logLevel: 'error' });
  onTestFinished(() => sync.close());
  return { sync, searches: () => searches, answered: () => answered };
}

/** Resolves true once `ready()` holds, or false after `ms`. */
async function within(ms: number, ready: () => boolean): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (ready()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return ready();
}

describe('a window paged by one cursor', () => {
  const tenant = new FakeTenant({ tasks: 450, seed: 3 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('asks for its next page while the last one commits, never past its last page, and copies every task', async () => {
    const path = join(dir, 'ahead.db');
    // Before the commit of page n: the probe of the first task, and pages 1 to n.
    const askedDuring: boolean[] = [];
    let run: ReturnType<typeof oneCursor> | undefined;
    const store = withCommit(new SqliteSyncStore({ path }), async (real, n) => {
      askedDuring.push(await within(1_000, () => (run?.searches() ?? 0) >= n + 2));
      return real();
    });
    run = oneCursor(tenant, store);
    const summary = await run.sync.run();
    expect(summary.pages).toBe(5);
    expect(askedDuring).toEqual([true, true, true, true, false]);
    expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
  });

  it('a commit that fails while the next page is asked for fails the run with its error, and nothing after it is written', async () => {
    const path = join(dir, 'fails.db');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    onTestFinished(() => void process.off('unhandledRejection', onUnhandled));
    let run: ReturnType<typeof oneCursor> | undefined;
    const store = withCommit(new SqliteSyncStore({ path }), async (real, n) => {
      if (n < 2) return real();
      // The next page is on its way: the commit fails under it.
      await within(1_000, () => (run?.searches() ?? 0) >= n + 2);
      throw new Error('the disk is full');
    });
    run = oneCursor(tenant, store);
    const error = await caught(run.sync.run());
    expect((error as Error).message).toBe('the disk is full');
    // The page asked for ahead settles, aborted or answered: give it time to, then look.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
    const db = new DatabaseSync(path, { readOnly: true });
    onTestFinished(() => db.close());
    expect(db.prepare('SELECT count(*) AS n FROM idgov_tasks').get()).toEqual({ n: 100 });
    expect(db.prepare('SELECT pages, cursor_ms FROM idgov_sync_windows').all()).toMatchObject([{ pages: 1 }]);
  });

  it('a stop while a page commits commits nothing after it, though the next page came in meanwhile', async () => {
    const path = join(dir, 'stop.db');
    const stop = new AbortController();
    let run: ReturnType<typeof oneCursor> | undefined;
    let commits = 0;
    const store = withCommit(new SqliteSyncStore({ path }), async (real, n) => {
      commits = n;
      if (n === 2) {
        // The next page has come in (the tenant answers at once) when the stop comes.
        await within(1_000, () => (run?.searches() ?? 0) >= n + 2);
        await new Promise((resolve) => setTimeout(resolve, 100));
        stop.abort();
      }
      return real();
    });
    run = oneCursor(tenant, store);
    const summary = await run.sync.run({ signal: stop.signal });
    expect(summary.complete).toBe(false);
    expect(commits).toBe(2);
    expect(summary.pages).toBe(2);
  });

  it('past a split made while it paged, a window writes no task of the other half, and the copy is whole', async () => {
    const path = join(dir, 'split.db');
    let end: number | undefined;
    const beyond: string[] = [];
    const real = new SqliteSyncStore({ path });
    const store = withCommit(real, async (commit, n, [run, window, page]) => {
      // Split while page 2 commits: the page asked for ahead still reaches to the old end.
      if (n === 2) expect(await real.splitLargest(run, { minTasks: 1, minSpanMs: 1 })).toBe(true);
      if (end !== undefined && window.id === 1) {
        for (const task of page.tasks) if (Date.parse(task.createdAt ?? '') > end + 1) beyond.push(task.id);
      }
      const result = await commit();
      if (window.id === 1) end = result.to;
      return result;
    });
    const { sync } = oneCursor(tenant, store);
    await sync.run();
    expect(end).toBeLessThan(Date.now() - 1_000); // the split moved it
    expect(beyond).toEqual([]);
    expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
  });

  it('a page whose commit found its window taken over is a page fetched, and so is the one asked for ahead', async () => {
    const path = join(dir, 'lost.db');
    let cursor: ReturnType<typeof oneCursor> | undefined;
    let lost: PageCommitResult | undefined;
    const store = withCommit(new SqliteSyncStore({ path }), async (commit, n, [, window]) => {
      if (n === 2) {
        // Page 3 came in; then another worker takes the window over for a moment, as when this
        // one's lease ran out: page 2 is not written, and the cursor takes the window up again
        // from page 1 once the other's lease ran out too.
        expect(await within(1_000, () => (cursor?.answered() ?? 0) >= 4)).toBe(true);
        const db = new DatabaseSync(path);
        db.prepare(
          'UPDATE idgov_sync_windows SET lease_token = ?, leased_at = ?, lease_until = ? WHERE id = ?',
        ).run('another worker', Date.now(), Date.now() + 300, window.id);
        db.close();
        lost = await commit();
        return lost;
      }
      return commit();
    });
    cursor = oneCursor(tenant, store);
    const summary = await cursor.sync.run();
    expect(lost?.lost).toBe(true);
    expect(summary).toMatchObject({ complete: true, tasksNew: tenant.tasks.length });
    expect(summary.pages).toBe(cursor.answered() - 1);
    expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
  });

  it('a page asked for ahead that came in is a page fetched, though a split ended its window first', async () => {
    const path = join(dir, 'counted.db');
    // A page of old tasks, then half a page in the middle of the time, then the rest of them recent:
    // page 2 ends past the midpoint of the time left after page 1, where a split ends the window.
    const now = Date.now();
    const data = new FakeData(5, { now });
    const DAY = 86_400_000;
    const at = (days: number, i: number) => ({
      createdAt: new Date(now - days * DAY + i * 60_000).toISOString(),
    });
    const skewed = new FakeTenant({
      seed: 5,
      tasks: [
        ...Array.from({ length: 100 }, (_, i) => data.task(at(80, i))),
        ...Array.from({ length: 50 }, (_, i) => data.task(at(50, i))),
        ...Array.from({ length: 250 }, (_, i) => data.task(at(2, i))),
      ],
    });
    const { close } = await skewed.listen();
    onTestFinished(close);
    let cursor: ReturnType<typeof oneCursor> | undefined;
    let ended = false;
    const real = new SqliteSyncStore({ path });
    const store = withCommit(real, async (commit, n, [run]) => {
      if (n === 2) {
        // The probe and pages 1 to 3 answered (3 asked for ahead); then a split at the midpoint.
        expect(await within(1_000, () => (cursor?.answered() ?? 0) >= 4)).toBe(true);
        expect(await real.splitLargest(run, { minTasks: 1, minSpanMs: 1 })).toBe(true);
      }
      const result = await commit();
      if (n === 2) ended = result.done;
      return result;
    });
    cursor = oneCursor(skewed, store);
    const summary = await cursor.sync.run();
    expect(ended).toBe(true);
    // Every answer but the probe's is a page the summary tells of.
    expect(summary.pages).toBe(cursor.answered() - 1);
    expect(differences(copiedTasks(path), expectedTasks(skewed.tasks))).toEqual([]);
  });
});
