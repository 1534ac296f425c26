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
import { type SyncStore, TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { caught } from '../helpers/caught.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-ahead-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `store` with its `commitPage` run through `commit`, which gets the real one and its call's number. */
function withCommit(
  store: SyncStore,
  commit: (real: () => ReturnType<SyncStore['commitPage']>, n: number) => ReturnType<SyncStore['commitPage']>,
): SyncStore {
  let n = 0;
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'commitPage') {
        return (...args: Parameters<SyncStore['commitPage']>) =>
          commit(() => target.commitPage(...args), ++n);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A sync of one cursor, and the number of searches it has sent so far. */
function oneCursor(tenant: FakeTenant, store: SyncStore) {
  const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'error' });
  let searches = 0;
  client.hooks.on('request', (event) => {
    if (event.attempt === 1 && event.path.includes('search')) searches += 1;
  });
  const sync = new TaskSync({ client, store, concurrency: 1, logLevel: 'error' });
  onTestFinished(() => sync.close());
  return { sync, searches: () => searches };
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
});
