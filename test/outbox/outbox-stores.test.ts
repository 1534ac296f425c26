import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError, StoreError } from '../../src/index.ts';
import { MemoryOutboxStore, type OutboxStore } from '../../src/outbox/index.ts';
import { PURGE_BATCH } from '../../src/outbox/purge.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { UNRECORDED_ATTEMPT } from '../../src/outbox/unrecorded-attempt.ts';
import { caught } from '../helpers/caught.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { type SilentProxy, silentProxy } from '../helpers/silent-proxy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-stores-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pg = await postgresForTests();
afterAll(() => pg?.stop());

let n = 0;
const L = 'https://tenant.test/api/v1/webhooks/incoming/lst-1';
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const DAY = 24 * 60 * 60_000;
const add = (store: OutboxStore, i: number, at = 1_000, listener = L) =>
  store.add({ eventId: id(i), listener, body: `{"n":${i}}`, enqueuedAt: at, expiresAt: at + DAY });
const claim = (
  store: OutboxStore,
  now: number,
  extra: { ordered?: boolean; limit?: number; token?: string } = {},
) =>
  store.claim({
    listener: L,
    now,
    leaseMs: 60_000,
    limit: extra.limit ?? 10,
    ordered: extra.ordered ?? false,
    leaseToken: extra.token ?? crypto.randomUUID(),
  });
const retryAt = (nextAttemptAt: number) => ({
  state: 'pending' as const,
  answer: { status: 503 },
  nextAttemptAt,
});

const stores: Array<[string, () => Promise<OutboxStore>]> = [
  ['memory', async () => new MemoryOutboxStore()],
  ['sqlite', async () => new SqliteOutboxStore({ path: join(dir, `store-${++n}.db`) })],
];
if (pg) {
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  stores.push([
    'postgres',
    async () => {
      const store = new PostgresOutboxStore({
        connectionString: pg.url,
        table: `${pg.schema}.contract_${++n}`,
      });
      await store.migrate();
      return store;
    },
  ]);
} else {
  it.skip(`PostgreSQL store contract: ${NO_POSTGRES}`, () => {});
}

describe.each(stores)('%s store contract', (_name, open) => {
  it('adds once per event ID and hands back the stored event for a repeat', async () => {
    const store = await open();
    expect(await add(store, 1)).toBeUndefined();
    const again = await store.add({
      eventId: id(1),
      listener: L,
      body: '{"other":1}',
      enqueuedAt: 5,
      expiresAt: 9,
    });
    expect(again).toMatchObject({ eventId: id(1), body: '{"n":1}', state: 'pending', attempts: 0 });
    expect(await store.counts(L)).toEqual({ pending: 1, delivered: 0, dead: 0, expired: 0 });
    await store.close();
  });

  it("lists the listeners that have events, in order, for the operator's tools", async () => {
    const store = await open();
    expect(await store.listeners?.()).toEqual([]);
    await add(store, 1);
    const other = 'https://b.example/api/v1/webhooks/incoming/zz';
    await store.add({ eventId: id(2), listener: other, body: '{}', enqueuedAt: 5, expiresAt: 9 });
    await add(store, 3);
    expect(await store.listeners?.()).toEqual([L, other].sort());
    await store.close();
  });

  it('an ordered claim takes nothing while the head, past its window, still has an attempt in flight: what follows waits for its outcome', async () => {
    const store = await open();
    await add(store, 1);
    await add(store, 2, 2_000);
    // Claimed a moment before its window ends (a day after 1,000), its attempt goes on past it.
    const end = 1_000 + DAY;
    const [head] = await claim(store, end - 10, { ordered: true });
    expect(head?.eventId).toBe(id(1));
    expect(await claim(store, end + 10, { ordered: true, token: 'b' })).toEqual([]);
    // Its outcome recorded (a delivery wins over the window), the next goes.
    expect(
      await store.complete(id(1), head?.leaseToken ?? '', end + 20, {
        state: 'delivered',
        answer: { status: 200 },
      }),
    ).toBe(true);
    expect((await claim(store, end + 30, { ordered: true, token: 'b' })).map((e) => e.eventId)).toEqual([
      id(2),
    ]);
    await store.close();
  });

  it('claims in enqueue order; ordered claims only the head, and nothing while the head is held or waiting', async () => {
    const store = await open();
    for (const i of [1, 2, 3]) await add(store, i);
    await add(store, 4, 1_000, 'https://tenant.test/api/v1/webhooks/incoming/other');
    const [head, ...rest] = await claim(store, 2_000, { ordered: true });
    expect(head?.eventId).toBe(id(1));
    expect(rest).toEqual([]);
    expect(await claim(store, 2_000, { ordered: true })).toEqual([]); // held
    expect(await store.complete(id(1), head?.leaseToken ?? '', 2_100, retryAt(10_000))).toBe(true);
    expect(await claim(store, 5_000, { ordered: true })).toEqual([]); // waiting to retry
    expect((await claim(store, 10_000, { ordered: true })).map((e) => e.eventId)).toEqual([id(1)]);
    const unordered = await claim(store, 10_000, { limit: 5 });
    expect(unordered.map((e) => e.eventId)).toEqual([id(2), id(3)]); // id(1) is held, id(4) is another listener's
    await store.close();
  });

  it('renews the leases its claim still holds (a heartbeat), and not those another took over', async () => {
    const store = await open();
    await add(store, 1);
    await add(store, 2);
    await add(store, 3);
    await claim(store, 2_000, { limit: 2, token: 'worker-a' }); // 1 and 2, leased until 62,000
    expect((await store.renew('worker-a', [id(1), id(2)], 50_000, 60_000)).sort()).toEqual([id(1), id(2)]);
    // Renewed until 110,000: nobody takes them at 100,000, where the first lease would have run out.
    expect(await claim(store, 100_000, { limit: 2, token: 'worker-b' })).toMatchObject([{ eventId: id(3) }]);
    expect(await store.leases?.(L, 100_000, 10)).toMatchObject([
      { eventId: id(1), until: 110_000 },
      { eventId: id(2), until: 110_000 },
      { eventId: id(3), until: 160_000 },
    ]);
    // Once they run out unrenewed, another takes them; the old claim renews nothing of theirs.
    const c = await claim(store, 110_001, { limit: 2, token: 'worker-c' });
    expect(c.map((e) => e.eventId)).toEqual([id(1), id(2)]);
    expect(await store.renew('worker-a', [id(1), id(2)], 110_002, 60_000)).toEqual([]);
    await store.complete(id(1), 'worker-c', 110_003, { state: 'delivered', answer: { status: 200 } });
    expect(await store.renew('worker-c', [id(1), id(2)], 110_004, 60_000)).toEqual([id(2)]); // 1 is not pending
    await store.close();
  });

  it('a renewal answered late keeps the end a newer one gave; after a clock put right, the new end holds', async () => {
    const store = await open();
    await add(store, 1);
    await claim(store, 2_000, { limit: 1, token: 'worker-a' });
    // Two renewals in flight on a slow database: the one sent at 50,000 is taken first.
    await store.renew('worker-a', [id(1)], 50_000, 60_000);
    await store.renew('worker-a', [id(1)], 40_000, 60_000);
    expect(await store.leases?.(L, 60_000, 10)).toMatchObject([{ eventId: id(1), until: 110_000 }]);
    // The holder's clock ran an hour ahead, and is put right: its next renewal is by the right clock,
    // so that if it dies now, the event waits a lease, not an hour.
    await store.renew('worker-a', [id(1)], 3_660_000, 60_000);
    await store.renew('worker-a', [id(1)], 70_000, 60_000);
    expect(await store.leases?.(L, 70_000, 10)).toMatchObject([{ eventId: id(1), until: 130_000 }]);
    expect(await claim(store, 130_001, { token: 'worker-b' })).toMatchObject([{ eventId: id(1) }]);
    await store.close();
  });

  it("hands a lapsed lease on; the old holder's outcome is refused, except delivered", async () => {
    const store = await open();
    await add(store, 1);
    await add(store, 2);
    const a = await claim(store, 2_000, { limit: 2, token: 'worker-a' });
    expect(a).toHaveLength(2);
    expect(await claim(store, 30_000)).toEqual([]);
    const b = await claim(store, 62_001, { limit: 2, token: 'worker-b' }); // a's lease ran out
    expect(b.map((e) => e.leaseToken)).toEqual(['worker-b', 'worker-b']);
    // a's attempts may have reached the listener: counted as b takes them over.
    expect(b.map((e) => [e.attempts, e.lastAttemptAt, e.lastAnswer])).toEqual([
      [1, 2_000, { error: UNRECORDED_ATTEMPT }],
      [1, 2_000, { error: UNRECORDED_ATTEMPT }],
    ]);
    expect(await store.complete(id(1), 'worker-a', 62_500, retryAt(99_000))).toBe(false);
    expect(
      await store.complete(id(2), 'worker-a', 62_500, { state: 'delivered', answer: { status: 200 } }),
    ).toBe(true);
    expect(
      await store.complete(id(2), 'worker-b', 62_600, { state: 'delivered', answer: { status: 409 } }),
    ).toBe(false);
    expect(
      await store.complete(id(1), 'worker-b', 62_700, { state: 'delivered', answer: { status: 409 } }),
    ).toBe(true);
    // a's attempt of id(2) was counted when b took its lease over, and b's (whose 409 is then
    // refused) as a's delivery was recorded; b's attempt of id(1) is counted as it is recorded.
    expect(await store.get(id(2))).toMatchObject({
      state: 'delivered',
      attempts: 2,
      lastAnswer: { status: 200 },
    });
    expect(await store.get(id(1))).toMatchObject({
      state: 'delivered',
      attempts: 2,
      lastAnswer: { status: 409 },
    });
    expect(await store.counts(L)).toMatchObject({ pending: 0, delivered: 2 });
    await store.close();
  });

  it('holds a lease and a retry wait for a worker whose clock is a little behind (leaseMs 60 s)', async () => {
    const store = await open();
    await add(store, 1);
    await add(store, 2);
    expect(await claim(store, 50_000, { ordered: true, token: 'a' })).toHaveLength(1);
    expect(await claim(store, 49_999, { ordered: true })).toEqual([]);
    expect((await claim(store, 49_999)).map((e) => e.eventId)).toEqual([id(2)]); // not id(1)
    await store.complete(id(1), 'a', 50_000, retryAt(60_000));
    expect(await claim(store, 49_999, { ordered: true })).toEqual([]); // not before its retry
    expect(await claim(store, 60_000, { ordered: true })).toHaveLength(1);
    await store.close();
  });

  it('treats a lease or an attempt more than a lease length "in the future" as a clock that went back', async () => {
    const store = await open();
    await add(store, 1);
    const [first] = await claim(store, 200_000, { token: 't1' });
    await store.complete(id(1), 't1', 200_000, retryAt(210_000));
    expect(await claim(store, 140_000, { token: 't2' })).toEqual([]); // 60 s back: within the tolerance
    expect((await claim(store, 139_999, { token: 't2' })).map((e) => e.eventId)).toEqual([id(1)]);
    expect(await claim(store, 79_999, { token: 't3' })).toEqual([]); // t2's lease holds
    expect((await claim(store, 79_998, { token: 't4' })).map((e) => e.leaseToken)).toEqual(['t4']);
    expect(first?.eventId).toBe(id(1));
    await store.close();
  });

  it('expires pending events past their window instead of claiming them', async () => {
    const store = await open();
    await add(store, 1);
    await add(store, 2, 2_000);
    expect((await claim(store, 1_000 + DAY, { ordered: true })).map((e) => e.eventId)).toEqual([id(2)]);
    expect(await store.expire(L, 1_000 + DAY)).toBe(1);
    expect(await store.get(id(1))).toMatchObject({ state: 'expired', finishedAt: 1_000 + DAY });
    expect(await store.retry(id(1), 1_000 + DAY)).toBe(false);
    await store.close();
  });

  it('counts the attempt of a lease that ran out unrecorded when it expires the event or retries it, and only then', async () => {
    const store = await open();
    for (const i of [1, 2, 3]) await add(store, i, i === 2 ? 1_000 : 2_000); // 2 expires first
    expect(await claim(store, 2_000, { limit: 3, token: 'killed' })).toHaveLength(3);
    await store.complete(id(3), 'killed', 3_000, retryAt(3_000));
    expect(await store.retry(id(1), 62_001)).toBe(true); // an operator's retry, once the lease ran out
    expect(await store.expire(L, 1_000 + DAY)).toBe(1);
    expect(await store.retry(id(3), 3_000)).toBe(true); // recorded, then retried: counted once
    for (const [i, state] of [
      [1, 'pending'],
      [2, 'expired'],
    ] as const) {
      expect(await store.get(id(i))).toMatchObject({
        state,
        attempts: 1,
        lastAttemptAt: 2_000,
        lastAnswer: { error: UNRECORDED_ATTEMPT },
      });
    }
    expect(await store.get(id(3))).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastAnswer: { status: 503 },
    });
    await store.close();
  });

  it('releases a claim without counting an attempt', async () => {
    const store = await open();
    await add(store, 1);
    const [event] = await claim(store, 2_000, { token: 't1' });
    await store.release(id(1), 'other-token');
    expect(await claim(store, 2_000)).toEqual([]);
    await store.release(id(1), event?.leaseToken ?? '');
    expect(await claim(store, 2_000)).toHaveLength(1);
    expect((await store.get(id(1)))?.attempts).toBe(0);
    await store.close();
  });

  it('keeps dead letters with their answer, retries them within the window, purges old deliveries', async () => {
    const store = await open();
    for (const i of [1, 2, 3]) await add(store, i);
    const claimed = await claim(store, 2_000);
    const token = (i: number) => claimed.find((e) => e.eventId === id(i))?.leaseToken ?? '';
    await store.complete(id(1), token(1), 2_100, {
      state: 'dead',
      answer: { status: 401, body: '{"message":"no"}' },
    });
    await store.complete(id(2), token(2), 2_200, { state: 'delivered', answer: { status: 200 } });
    await store.complete(id(3), token(3), 9_000, { state: 'delivered', answer: { status: 409 } });
    const dead = await store.list(L, 'dead', 10);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      eventId: id(1),
      attempts: 1,
      lastAnswer: { status: 401, body: '{"message":"no"}' },
    });
    expect(await store.retry(id(2), 3_000)).toBe(false); // delivered
    expect(await store.retry(id(1), 3_000)).toBe(true);
    expect(await store.get(id(1))).toMatchObject({ state: 'pending', nextAttemptAt: 3_000 });
    expect(await store.purgeDelivered(L, 5_000)).toBe(1);
    expect(await store.get(id(2))).toBeUndefined();
    expect(await store.counts(L)).toEqual({ pending: 1, delivered: 1, dead: 0, expired: 0 });
    await store.close();
  });

  it('lists a page after an event, whatever that event is now, and from the first once it is gone; says when the next attempt is due', async () => {
    const store = await open();
    const other = 'https://tenant.test/api/v1/webhooks/incoming/other';
    for (const i of [1, 2, 3, 4, 5]) await add(store, i, 1_000 + i);
    await store.add({ eventId: id(9), listener: other, body: '{}', enqueuedAt: 1, expiresAt: DAY });
    expect(await store.nextDueAt?.(L)).toBe(1_001);
    const ids = (events: { eventId: string }[]) => events.map((event) => event.eventId);
    expect(ids(await store.list(L, 'pending', 2))).toEqual([id(1), id(2)]);
    expect(ids(await store.list(L, 'pending', 2, id(2)))).toEqual([id(3), id(4)]);
    // The anchor left the state listed (delivered): the next page still follows it.
    const [second] = await store.claim({
      listener: L,
      now: 2_000,
      leaseMs: 60_000,
      limit: 1,
      ordered: false,
      leaseToken: 'a',
      exclude: [id(1)],
    });
    expect(second?.eventId).toBe(id(2));
    await store.complete(id(2), 'a', 2_100, { state: 'delivered', answer: { status: 200 } });
    expect(ids(await store.list(L, 'pending', 10, id(2)))).toEqual([id(3), id(4), id(5)]);
    // Another listener's event as the anchor: the order is the store's, across listeners.
    expect(ids(await store.list(L, 'pending', 10, id(9)))).toEqual([]);
    // The anchor gone (purged): from the first, the pending event before it included.
    expect(await store.purgeDelivered(L, 5_000)).toBe(1);
    expect(ids(await store.list(L, 'pending', 10, id(2)))).toEqual([id(1), id(3), id(4), id(5)]);
    expect(await store.nextDueAt?.(L)).toBe(1_001);
    expect(await store.nextDueAt?.('https://tenant.test/api/v1/webhooks/incoming/none')).toBeUndefined();
    await store.close();
  });

  it('purges finished events of one state, before a time, of one listener: never a pending one', async () => {
    const store = await open();
    for (const i of [1, 2, 3, 4]) await add(store, i);
    await add(store, 5, 1_000, 'https://other.example/hook');
    const claimed = await claim(store, 2_000);
    const token = (i: number) => claimed.find((e) => e.eventId === id(i))?.leaseToken ?? '';
    const dead = { state: 'dead', answer: { status: 400 } } as const;
    await store.complete(id(1), token(1), 2_100, dead);
    await store.complete(id(2), token(2), 8_000, dead);
    await store.complete(id(3), token(3), 2_100, { state: 'delivered', answer: { status: 200 } });
    await store.release(id(4), token(4));
    const purge = store.purgeFinished?.bind(store);
    if (!purge) throw new Error('every store of the SDK purges finished events');
    // Still within its window (it ends at 1_000 + DAY), a dead event is kept when asked.
    expect(await purge(L, 'dead', 5_000, { windowEndedBy: DAY })).toBe(0);
    expect(await purge(L, 'dead', 5_000, { windowEndedBy: 1_000 + DAY })).toBe(1);
    expect(await store.get(id(1))).toBeUndefined();
    expect(await store.get(id(2))).toMatchObject({ state: 'dead' });
    expect(await store.get(id(3))).toMatchObject({ state: 'delivered' });
    expect(await purge(L, 'expired', 1e15)).toBe(0);
    expect(await store.counts(L)).toEqual({ pending: 1, delivered: 1, dead: 1, expired: 0 });
    expect((await store.get(id(5)))?.state).toBe('pending');
    await store.close();
  });
});

describe.each(stores.filter(([name]) => name !== 'memory'))(
  '%s store, beyond the contract',
  (_name, open) => {
    it("names each lease's process and machine, so that an operator can find who holds an event", async () => {
      const store = await open();
      await add(store, 1);
      const [claimed] = await claim(store, 2_000, { token: 'outbox-1234/claim-1' });
      expect(claimed?.leaseToken).toBe('outbox-1234/claim-1');
      const [lease] = (await store.leases?.(L, 2_000, 10)) ?? [];
      expect(lease?.holder).toMatch(
        new RegExp(`^${process.pid}(\\.\\d+)?@${hostname()}.*/outbox-1234/claim-1$`),
      );
      // The token the outbox was given still renews and completes its lease.
      expect(await store.renew('outbox-1234/claim-1', [id(1)], 2_500, 60_000)).toEqual([id(1)]);
      expect(
        await store.complete(id(1), 'outbox-1234/claim-1', 3_000, {
          state: 'delivered',
          answer: { status: 200 },
        }),
      ).toBe(true);
      await store.close();
    });

    it('deletes a large backlog a batch a transaction: an abort stops it between two, and a second purge deletes the rest, never a newer one', async () => {
      const store = await open();
      const total = 2 * PURGE_BATCH + 500;
      for (let i = 1; i <= total; i++) await add(store, i);
      const claimed = await claim(store, 2_000, { limit: total });
      // Every seventh finished after the purge's time: kept, wherever it stands among the others.
      for (const [i, event] of claimed.entries()) {
        const at = i % 7 === 0 ? 9_000 : 3_000;
        await store.complete(event.eventId, event.leaseToken, at, {
          state: 'delivered',
          answer: { status: 200 },
        });
      }
      const newer = claimed.filter((_, i) => i % 7 === 0).length;
      const purge = store.purgeFinished?.bind(store);
      if (!purge) throw new Error('every store of the SDK purges finished events');
      const stop = new AbortController();
      const first = purge(L, 'delivered', 5_000, { signal: stop.signal });
      stop.abort(); // heard once the first batch is in
      expect(await first).toBe(PURGE_BATCH);
      expect(await store.counts(L)).toMatchObject({ delivered: total - PURGE_BATCH });
      expect(await purge(L, 'delivered', 5_000)).toBe(total - newer - PURGE_BATCH);
      expect(await store.counts(L)).toMatchObject({ delivered: newer });
      for (const [i, event] of claimed.entries()) {
        if (i % 7 === 0) expect((await store.get(event.eventId))?.finishedAt).toBe(9_000);
      }
      await store.close();
    });
  },
);

describe.skipIf(!pg)('PostgreSQL store details', () => {
  it('works on a pool passed in, which close() leaves open; migrate() may run twice', async () => {
    const { default: Pg } = await import('pg');
    const { PostgresOutboxStore, postgresOutboxSchema } = await import('../../src/outbox/postgres-store.ts');
    const pool = new Pg.Pool({ connectionString: pg?.url });
    const table = `${pg?.schema}.webhook_outbox`;
    const store = new PostgresOutboxStore({ pool, table });
    await Promise.all([store.migrate(), store.migrate()]);
    await add(store, 1);
    await store.close();
    const { rows } = await pool.query(`SELECT event_id FROM ${table}`);
    expect(rows).toEqual([{ event_id: id(1) }]);
    expect(postgresOutboxSchema('partner.webhook_outbox')).toMatch(
      /CREATE TABLE IF NOT EXISTS "partner"\."webhook_outbox"/,
    );
    expect(() => postgresOutboxSchema('x; DROP TABLE y')).toThrow(/lower-case SQL name/);
    await pool.end();
  });
});

it('a table or schema name too long is said to be too long, not to hold other characters', async () => {
  const { postgresOutboxSchema } = await import('../../src/outbox/postgres-schema.ts');
  expect(() => postgresOutboxSchema('a'.repeat(80))).toThrow(
    /table name "a{80}" is 80 characters; at most \d+ leave room/,
  );
  expect(() => postgresOutboxSchema(`${'s'.repeat(70)}.outbox`)).toThrow(
    /schema name "s{70}" is 70 characters/,
  );
  expect(() => postgresOutboxSchema('Outbox')).toThrow(/lower-case SQL name/);
});

describe.skipIf(!pg)('PostgreSQL store, reserved words', () => {
  it('takes a reserved word (user, order) as the table name', async () => {
    const { default: Pg } = await import('pg');
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    // Unqualified names land in the test's schema.
    const pool = new Pg.Pool({ connectionString: pg?.url, options: `-c search_path=${pg?.schema}` });
    for (const table of ['user', 'order']) {
      const store = new PostgresOutboxStore({ pool, table });
      await store.migrate();
      await add(store, 1);
      expect((await claim(store, 2_000)).map((e) => e.eventId)).toEqual([id(1)]);
      expect(await store.counts(L)).toMatchObject({ pending: 1 });
    }
    await pool.end();
  });
});

describe.skipIf(!pg)('PostgreSQL store, connections ended by the server', () => {
  it('survives idle connections terminated (a restart): logs a warning, and the next query reconnects', async () => {
    const { default: Pg } = await import('pg');
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const app = `idgov_test_${crypto.randomUUID().slice(0, 8)}`;
    const url = new URL(pg?.url ?? '');
    url.searchParams.set('application_name', app);
    const warnings: string[] = [];
    const logger = { error() {}, warn: (m: string) => warnings.push(m), info() {}, debug() {} };
    const store = new PostgresOutboxStore({
      connectionString: url.href,
      table: `${pg?.schema}.restart_${++n}`,
      logger,
      logLevel: 'warn',
    });
    await store.migrate();
    await add(store, 1);
    const admin = new Pg.Client({ connectionString: pg?.url });
    await admin.connect();
    const { rowCount } = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [app],
    );
    await admin.end();
    expect(rowCount).toBeGreaterThan(0);
    await vi.waitFor(() => expect(warnings).toHaveLength(rowCount ?? 0));
    expect(warnings[0]).toMatch(/idle PostgreSQL connection failed \(terminating connection/);
    expect(await store.counts(L)).toMatchObject({ pending: 1 });
    await store.close();
  });
});

describe.skipIf(!pg)('PostgreSQL store, a connection gone half-open', () => {
  /** A store through `proxy` whose one connection goes silent once `first` is done; what the next read gives. */
  async function silenced(
    proxy: SilentProxy,
    options: { connectionString: string; queryTimeoutMs?: number },
  ): Promise<{ error: unknown; after: unknown }> {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const store = new PostgresOutboxStore({
      ...options,
      table: `${pg?.schema}.half_open_${++n}`,
      maxConnections: 1,
    });
    try {
      await store.migrate();
      await add(store, 1);
      proxy.silenceOpenConnections();
      const error = await caught(store.counts(L));
      // With one connection allowed, this answers only if the silent one was dropped.
      return { error, after: await store.counts(L) };
    } finally {
      await store.close();
    }
  }

  it('gives a statement up after queryTimeoutMs as transient, drops its connection, and the next query uses a new one', async () => {
    const proxy = await silentProxy(pg?.url ?? '');
    try {
      const { error, after } = await silenced(proxy, { connectionString: proxy.url, queryTimeoutMs: 300 });
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).transient).toBe(true);
      expect((error as StoreError).message).toMatch(
        /no answer came within the query timeout, and the connection was dropped: .*raise queryTimeoutMs, query_timeout=MS in the connection URL, .*and the server may still carry it out: it may pass/,
      );
      expect(after).toMatchObject({ pending: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('takes query_timeout from the connection URL, as idgov is given it', async () => {
    const proxy = await silentProxy(pg?.url ?? '');
    const url = new URL(proxy.url);
    url.searchParams.set('query_timeout', '300');
    try {
      const { error, after } = await silenced(proxy, { connectionString: url.href });
      expect((error as StoreError).message).toMatch(/no answer came within the query timeout/);
      expect(after).toMatchObject({ pending: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('refuses a queryTimeoutMs that is not a whole number of ms, naming it', async () => {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    // 2^31 ms is past what a timer holds: it would fire after 1 ms, failing every statement.
    for (const queryTimeoutMs of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => new PostgresOutboxStore({ connectionString: pg?.url, queryTimeoutMs })).toThrow(
        /PostgresOutboxStore: queryTimeoutMs must be a non-negative integer .*or 0 to wait for ever/,
      );
    }
    // A pool of the caller's has its own query_timeout: the option would be ignored there.
    const { default: Pg } = await import('pg');
    const pool = new Pg.Pool({ connectionString: pg?.url });
    expect(() => new PostgresOutboxStore({ pool, queryTimeoutMs: 60_000 })).toThrow(
      /queryTimeoutMs applies to a pool the store opens from connectionString: give your own pool query_timeout instead/,
    );
    await pool.end();
  });
});

it("a PostgreSQL URL whose password holds a '#' not percent-encoded is refused, quoting none of it", async () => {
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  const { PostgresSyncStore } = await import('../../src/sync/postgres/store.ts');
  // The driver would read a host `ss` and a fragment, and an error naming that host quotes the password.
  const connectionString = 'postgres://app:p@ss#w0rd@127.0.0.1:1/postgres';
  for (const open of [
    () => new PostgresOutboxStore({ connectionString }),
    () => new PostgresSyncStore({ connectionString }),
  ]) {
    const error = await caught((async () => open())());
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/percent-encode it \(# as %23/);
    expect(error.message).not.toMatch(/w0rd|p@ss|ss@/);
  }
  // A '?' or '/' there too; encoded, or an '@' where a URL may hold one, it is taken.
  for (const spilled of [
    'postgres://app:p@ss?w0rd@127.0.0.1:1/postgres',
    'postgres://app:p@ss?w0rd@127.0.0.1:1/postgres?sslmode=require',
    'postgres://app:p@ss/w0rd@127.0.0.1:1/postgres',
    'postgres://app:p@ss/w0rd@127.0.0.1:1',
  ])
    expect(() => new PostgresOutboxStore({ connectionString: spilled })).toThrow(ConfigurationError);
  for (const taken of [
    'postgres://app:p%40ss%23w0rd@127.0.0.1:1/postgres',
    'postgres://app:p@127.0.0.1:1/db?application_name=svc@host',
    'postgres://127.0.0.1:1/db?user=admin@srv&password=x',
    'postgresql://app:p@127.0.0.1:1/my@db',
  ])
    await new PostgresOutboxStore({ connectionString: taken }).close();
});

it('PostgreSQL store without the pg package says to install it (or to pass a pool)', async () => {
  vi.resetModules();
  vi.doMock('pg', () => {
    throw new Error("Cannot find package 'pg'");
  });
  try {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const store = new PostgresOutboxStore({ connectionString: 'postgres://127.0.0.1:1/none' });
    await expect(store.counts(L)).rejects.toThrow(
      /needs the pg package.*: npm install pg \(or pass a pool of your own\)/,
    );
  } finally {
    vi.doUnmock('pg');
    vi.resetModules();
  }
});

describe('SQLite store on a file it cannot write', () => {
  const readOnlyFile = () => {
    const path = join(dir, `read-only-${++n}.db`);
    const db = new DatabaseSync(path);
    db.exec('CREATE TABLE other (a)'); // a database, not yet an outbox: opening it must write
    db.close();
    return path;
  };

  it('says the file is read-only and how to fix it, with a ConfigurationError', () => {
    const path = `file:${readOnlyFile()}?mode=ro`;
    const open = () => new SqliteOutboxStore({ path });
    expect(open).toThrow(ConfigurationError);
    expect(open).toThrow(`The outbox file ${path} is read-only`);
    expect(open).toThrow(/give this process write access to it and to its directory/);
  });

  it.skipIf(process.getuid?.() === 0)('(a file with mode 0444, when not root)', () => {
    const path = readOnlyFile();
    chmodSync(path, 0o444);
    expect(() => new SqliteOutboxStore({ path })).toThrow(/is read-only .* write access/);
  });

  it('says when the directory does not exist', () => {
    const path = join(dir, 'missing', 'outbox.db');
    expect(() => new SqliteOutboxStore({ path })).toThrow(ConfigurationError);
    expect(() => new SqliteOutboxStore({ path })).toThrow(/Cannot open the outbox file .* directory exists/);
  });
});

/** Two connections to one SQL store, as two worker processes have. */
const pairs: Array<[string, () => Promise<[OutboxStore, OutboxStore]>]> = [
  [
    'sqlite',
    async () => {
      const path = join(dir, `pair-${++n}.db`);
      return [new SqliteOutboxStore({ path }), new SqliteOutboxStore({ path })];
    },
  ],
];
if (pg) {
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  pairs.push([
    'postgres',
    async () => {
      const table = `${pg.schema}.pair_${++n}`;
      const one = new PostgresOutboxStore({ connectionString: pg.url, table });
      await one.migrate();
      return [one, new PostgresOutboxStore({ connectionString: pg.url, table })];
    },
  ]);
}

describe.each(pairs)('%s: two workers racing for ordered claims', (_name, open) => {
  it('hand out the events strictly in enqueue order, one at a time', async () => {
    const [one, two] = await open();
    for (let i = 1; i <= 30; i++) await add(i % 2 ? one : two, i);
    const order: string[] = [];
    let inFlight = 0;
    const work = async (store: OutboxStore) => {
      for (let idle = 0; idle < 200 && order.length < 30; ) {
        const [event] = await claim(store, 2_000, { ordered: true, limit: 1 });
        if (!event) {
          idle += 1;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        inFlight += 1;
        expect(inFlight).toBe(1);
        order.push(event.eventId);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        await store.complete(event.eventId, event.leaseToken, 2_000, {
          state: 'delivered',
          answer: { status: 200 },
        });
      }
    };
    await Promise.all([work(one), work(two), work(one), work(two)]);
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => id(i + 1)));
    await one.close();
    await two.close();
  });
});

describe('SQLite file shared by two connections (two processes)', () => {
  it('never claims one event twice while its lease holds, and sees events the other added', async () => {
    const path = join(dir, 'shared.db');
    const one = new SqliteOutboxStore({ path });
    const two = new SqliteOutboxStore({ path });
    for (let i = 1; i <= 20; i++) await add(i % 2 ? one : two, i);
    const seen: string[] = [];
    for (let round = 0; round < 10; round++) {
      for (const store of [one, two])
        seen.push(...(await claim(store, 2_000, { limit: 3 })).map((e) => e.eventId));
    }
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
    await one.close();
    await two.close();
  });
});
