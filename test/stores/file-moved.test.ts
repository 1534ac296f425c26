/**
 * A SQLite file deleted or replaced under a store that has it open (a clean-up script, a restore
 * from a backup): SQLite in WAL mode goes on writing to the unlinked file, so every write after
 * that would be lost without a word. The stores stop instead, naming the file; and a lock held too
 * long is a transient StoreError on every outbox call, enqueue included.
 */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { IdGovClient, StoreError } from '../../src/index.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { caught } from '../helpers/caught.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-file-moved-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const L = 'https://tenant.test/api/v1/webhooks/incoming/lst-1';
const event = (i: number) => ({
  eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  listener: L,
  body: '{}',
  enqueuedAt: 1_000,
  expiresAt: 1_000 + 86_400_000,
});
const removeDatabase = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

describe('the outbox on a SQLite file taken from under it', () => {
  it('an enqueue after the file was deleted fails, naming it, instead of resolving into a file no one can open', async () => {
    const path = join(dir, `outbox-${++n}.db`);
    const store = new SqliteOutboxStore({ path });
    await store.add(event(1));
    removeDatabase(path);
    const error = await caught(store.add(event(2)));
    expect(error).toBeInstanceOf(StoreError);
    expect(error.transient).toBe(false);
    expect(error.message).toContain(
      `The outbox file ${path} was deleted or moved while this store had it open`,
    );
    // Reads say so too, rather than report events no file holds.
    await expect(store.counts(L)).rejects.toThrow(/was deleted or moved/);
    await store.close();
  });

  it('a file restored over it (another file at the path) is refused the same way', async () => {
    const path = join(dir, `outbox-${++n}.db`);
    const backup = join(dir, `outbox-${n}-backup.db`);
    const store = new SqliteOutboxStore({ path });
    await store.add(event(1));
    copyFileSync(path, backup);
    renameSync(backup, path);
    await expect(store.add(event(2))).rejects.toThrow(
      `The outbox file ${path} was replaced by another file while this store had it open`,
    );
    await store.close();
  });

  it('an enqueue that waits past busyTimeoutMs for another connection is a transient StoreError that says so', async () => {
    const path = join(dir, `outbox-${++n}.db`);
    const store = new SqliteOutboxStore({ path, busyTimeoutMs: 50 });
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await caught(store.add(event(1)));
      expect(error).toBeInstanceOf(StoreError);
      expect(error.transient).toBe(true);
      expect(error.message).toMatch(/waited 50 ms \(busyTimeoutMs\) for another connection's lock/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await store.add(event(1));
    expect(await store.counts(L)).toMatchObject({ pending: 1 });
    await store.close();
  });
});

describe('the task sync on a SQLite file taken from under it', () => {
  it('a run whose copy was deleted mid-run fails, naming the file, instead of ending "done" with nothing kept', async () => {
    const tenant = new FakeTenant({ tasks: 600, seed: 71 });
    const { close } = await tenant.listen();
    const path = join(dir, `copy-${++n}.db`);
    let searches = 0;
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logLevel: 'off',
      maxRetries: 0,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        // By the fourth search the first pages are committed: then the copy is deleted.
        if (request.url.endsWith('/search/tasks') && ++searches === 4) removeDatabase(path);
        return fetch(request);
      },
    });
    const sync = new TaskSync({
      client,
      store: new SqliteSyncStore({ path }),
      logLevel: 'off',
      pageSize: 50,
    });
    try {
      const error = await caught(sync.run());
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).toContain(
        `The task copy file ${path} was deleted or moved while this store had it open`,
      );
    } finally {
      await sync.close();
      await close();
    }
  });

  it('a change feed followed while its copy is restored from a backup stops, naming the file, rather than wait on the old one', async () => {
    const tenant = new FakeTenant({ tasks: 200, seed: 72 });
    const { close } = await tenant.listen();
    const path = join(dir, `copy-${++n}.db`);
    const backup = join(dir, `copy-${n}-backup.db`);
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logLevel: 'off' });
    const sync = new TaskSync({ client, store: new SqliteSyncStore({ path }), logLevel: 'off' });
    await sync.run();
    await sync.close();
    await close();
    copyFileSync(path, backup);
    const reader = new SqliteSyncStore({ path });
    let read = 0;
    const follow = async () => {
      for await (const _change of reader.changes({ after: 0, follow: true, pollMs: 20 })) {
        if (++read === 1) renameSync(backup, path);
      }
    };
    try {
      await expect(follow()).rejects.toThrow(
        `The task copy file ${path} was replaced by another file while this store had it open`,
      );
      expect(read).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });
});
