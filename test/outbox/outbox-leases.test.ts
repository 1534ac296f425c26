/**
 * Outbox leases with heartbeats: a worker SIGKILLed mid-attempt with the default options holds the
 * next worker back by at most a lease (at once on SQLite, whose store sees the dead process), which
 * delivers every event within 20 s of its start, each exactly once; and attempts slower than the
 * lease are never sent by two workers at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryOutboxStore, type OutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { PostgresOutboxStore } from '../../src/outbox/postgres-store.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';
import { eventIdOf, startWorker, until } from '../helpers/outbox-workers.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-leases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL outbox lease tests: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

/** A tenant whose listener takes `slowMs` over every delivery. */
async function slowListener(slowMs: number) {
  const tenant = new FakeTenant({ faults: { slow: 1, slowMs, seed: 1 } });
  const { id, secret = '' } = tenant.addListener();
  const server = await tenant.listen();
  return { tenant, server, url: tenant.listener(id)?.url ?? '', secret };
}

const EVENTS = 12;
const stores = [
  {
    name: 'SQLite',
    skip: false,
    seeds: [1, 2, 3],
    env: (n: number) => ({ STORE: 'sqlite', DB: join(dir, `killed-${n}.db`) }),
  },
  {
    name: 'PostgreSQL',
    skip: !pg,
    seeds: [1, 2],
    env: (n: number) => ({ STORE: 'postgres', DB: pg?.url ?? '', TABLE: `${pg?.schema}.killed_${n}` }),
  },
];

for (const store of stores) {
  describe.skipIf(store.skip)(
    `an outbox worker SIGKILLed mid-attempt on ${store.name}, default options`,
    () => {
      it(
        `seeds ${store.seeds.join(', ')}, side by side: the next worker delivers every event within 20 s of its start, each once`,
        () => Promise.all(store.seeds.map(killedAndTakenOver)),
        60_000,
      );

      /** One seed: a worker killed mid-attempt, then the next one started at once on the same store. */
      async function killedAndTakenOver(seed: number): Promise<void> {
        const { tenant, server, url, secret } = await slowListener(100);
        const random = new SeededRandom(seed);
        const env = {
          ...store.env(seed),
          LISTENER_URL: url,
          SECRET: secret,
          ENQUEUE: String(EVENTS),
          DEFAULTS: '1',
        };
        if (store.name === 'PostgreSQL') {
          const table = `${pg?.schema}.killed_${seed}`;
          const created = new PostgresOutboxStore({ connectionString: pg?.url, table });
          await created.migrate();
          await created.close();
        }
        const first = startWorker({ ...env, ENQUEUE_FROM: '0' });
        // Killed while an attempt is in flight (each takes 100 ms): after a few deliveries.
        const target = 2 + random.int(5);
        await until(
          () => tenant.deliveries.length >= target && first.announced() === EVENTS,
          [first],
          `${target} deliveries`,
        );
        await new Promise((resolve) => setTimeout(resolve, 20 + random.int(60)));
        first.child.kill('SIGKILL');
        expect((await first.exited).signal).toBe('SIGKILL');
        const started = Date.now();
        const worker = startWorker({ ...env, ENQUEUE_FROM: String(EVENTS) });
        // Every event delivered (accepted by the listener) within 20 s of the next worker's start.
        await until(
          () => new Set(tenant.deliveries.map((d) => d.eventId)).size === EVENTS,
          [],
          'every event',
        );
        expect(Date.now() - started, `seed ${seed}`).toBeLessThanOrEqual(20_000);
        const next = await worker.exited;
        expect(next, next.stderr).toMatchObject({ code: 0, drained: true });
        // On PostgreSQL it waited out the dead worker's lease, and said so; on SQLite it had no need.
        if (store.name === 'PostgreSQL') {
          expect(next.stderr).toMatch(
            /webhook outbox: waiting for event \S+, held by \d+(\.\d+)?@\S+\/outbox-\w+ until/,
          );
        } else {
          expect(next.stderr).not.toMatch(/waiting for event/);
        }
        await server.close();
        const accepted = tenant.deliveries.map((d) => d.eventId);
        expect(accepted.filter((id, i) => accepted.indexOf(id) !== i)).toEqual([]);
        expect(new Set(accepted)).toEqual(new Set(Array.from({ length: EVENTS }, (_, n) => eventIdOf(n))));
      }
    },
  );
}

describe('attempts slower than the lease (1.5 s against 1 s)', () => {
  const kinds: Array<[string, boolean, () => Promise<() => OutboxStore>]> = [
    [
      'SQLite',
      false,
      async () => {
        const path = join(dir, 'slow.db');
        return () => new SqliteOutboxStore({ path });
      },
    ],
    [
      'PostgreSQL',
      !pg,
      async () => {
        const table = `${pg?.schema}.slow`;
        const created = new PostgresOutboxStore({ connectionString: pg?.url, table });
        await created.migrate();
        await created.close();
        return () => new PostgresOutboxStore({ connectionString: pg?.url, table });
      },
    ],
  ];
  it.each(kinds)(
    '%s: two workers never send one event at once, and each is sent once',
    async (_name, skip, make) => {
      if (skip) return;
      const open = await make();
      const { tenant, server, url, secret } = await slowListener(1_500);
      const sender = () => new WebhookSender({ url, hmac: { secret } });
      const outboxes = [0, 1].map(
        () =>
          new WebhookOutbox({
            sender: sender(),
            store: open(),
            leaseMs: 1_000,
            concurrency: 6,
            logLevel: 'off',
          }),
      );
      const [first, second] = outboxes as [WebhookOutbox, WebhookOutbox];
      for (let n = 0; n < 6; n++) await first.enqueue({ n }, { eventId: eventIdOf(n) });
      let attempts = 0;
      for (const outbox of outboxes) {
        outbox.hooks.on('attempt', () => {
          attempts += 1;
        });
      }
      // The first claims every event; the second looks once the first's attempts outlived a lease.
      const draining = first.drain();
      await new Promise((resolve) => setTimeout(resolve, 1_250));
      const meanwhile = await second.drain();
      const drained = await draining;
      await server.close();
      expect(meanwhile).toMatchObject({ attempts: 0, delivered: 0 });
      expect(drained).toMatchObject({ attempts: 6, delivered: 6 });
      expect(attempts).toBe(6);
      const accepted = tenant.deliveries.map((d) => d.eventId);
      expect(accepted.sort()).toEqual(Array.from({ length: 6 }, (_, n) => eventIdOf(n)).sort());
    },
    30_000,
  );
});

it('a claim whose answer came after its lease ran out (a paused process) is not sent: released, and the worker that took the event over sends it once', async () => {
  const url = 'https://acme.example.com/api/v1/webhooks/incoming/l1';
  const sends: string[] = [];
  let inFlight = 0;
  let overlapping = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    sends.push(new Headers(init?.headers ?? (input as Request).headers).get('webhook-event-id') ?? '');
    inFlight += 1;
    if (inFlight > 1) overlapping += 1;
    await new Promise((resolve) => setTimeout(resolve, 300));
    inFlight -= 1;
    return new Response('{}', { status: 200 });
  };
  const shared = new MemoryOutboxStore();
  // Committed at once, answered 1.5 s later: the lease (1 s) ran out in between.
  const paused = new Proxy(shared, {
    get(target, property) {
      if (property === 'claim')
        return async (...args: Parameters<OutboxStore['claim']>) => {
          const claimed = await target.claim(...args);
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          return claimed;
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const outbox = (store: OutboxStore) =>
    new WebhookOutbox({
      sender: new WebhookSender({ url, hmac: { secret: 's3cr3t' }, fetch }),
      store,
      leaseMs: 1_000,
      logLevel: 'off',
    });
  const late = outbox(paused);
  const other = outbox(shared);
  const { eventId } = await late.enqueue({ n: 1 });
  const lateDrain = late.drain();
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const taken = await other.drain();
  const lateReport = await lateDrain;
  expect(taken).toMatchObject({ attempts: 1, delivered: 1 });
  expect(lateReport).toMatchObject({ delivered: 0 });
  expect(sends).toEqual([eventId]);
  expect(overlapping).toBe(0);
});
