/**
 * Crash tests of the outbox with real parts: worker processes (test/fixtures/outbox-worker.ts)
 * deliver to the fake tenant served by this process on loopback, with injected 503s, 429s and
 * dropped connections, and are SIGKILLed mid-run. The tenant's record of accepted deliveries must
 * hold every event ID exactly once, and no event's attempts fewer than the requests its listener
 * received. Sizes: OUTBOX_CRASH_EVENTS (default 1,000 for SQLite; the PostgreSQL test runs twice
 * that), OUTBOX_CRASH_KILLS (default 4); OUTBOX_CRASH_SEED replays a run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type OutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { PostgresOutboxStore } from '../../src/outbox/postgres-store.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { serveOnLoopback } from '../../src/testing/loopback-server.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { WebhookHeader, WebhookSender } from '../../src/webhooks/index.ts';
import { eventIdOf, startWorker, until, type Worker } from '../helpers/outbox-workers.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

const EVENTS = Number(process.env.OUTBOX_CRASH_EVENTS ?? 1_000);
const KILLS = Number(process.env.OUTBOX_CRASH_KILLS ?? 4);
const SEED = Number(process.env.OUTBOX_CRASH_SEED ?? Math.floor(Math.random() * 1e9));
// Seeded, so a failing crash schedule can be replayed with its seed.
const seededRandom = new SeededRandom(SEED);
const random = () => seededRandom.next();
const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
afterAll(() => pg?.stop());

async function faultyTenant() {
  const tenant = new FakeTenant({ faults: { serverError: 0.05, rateLimit: 0.03, drop: 0.05, seed: SEED } });
  const { id, secret = '' } = tenant.addListener();
  // Every request that reached the listener's server, by event ID: refused and dropped ones too.
  const received = new Map<string, number>();
  const server = await serveOnLoopback((request, remoteAddress) => {
    const eventId = request.headers.get(WebhookHeader.EVENT_ID) ?? '';
    received.set(eventId, (received.get(eventId) ?? 0) + 1);
    return tenant.handle(request, { remoteAddress });
  });
  tenant.baseUrl = server.url;
  return { tenant, server, url: tenant.listener(id)?.url ?? '', secret, received };
}

/**
 * No event's attempts say fewer than the requests its listener received: one whose worker was
 * killed before it could record the outcome counts too.
 */
async function expectEveryRequestCounted(store: OutboxStore, received: ReadonlyMap<string, number>) {
  const undercounted: string[] = [];
  for (const [eventId, requests] of received) {
    const attempts = (await store.get(eventId))?.attempts ?? 0;
    if (attempts < requests) undercounted.push(`${eventId}: ${requests} requests, ${attempts} attempts`);
  }
  expect(undercounted, `seed ${SEED}`).toEqual([]);
}

/** Every event 0..count-1 accepted exactly once, with its own body; nothing else accepted. */
function expectExactlyOnce(tenant: FakeTenant, count: number) {
  const accepted = tenant.deliveries.map((d) => d.eventId);
  const twice = accepted.filter((id, i) => accepted.indexOf(id) !== i);
  expect(twice, `accepted more than once (seed ${SEED})`).toEqual([]);
  const expected = Array.from({ length: count }, (_, n) => eventIdOf(n));
  expect(new Set(accepted), `seed ${SEED}`).toEqual(new Set(expected));
  for (const delivery of tenant.deliveries) {
    expect(eventIdOf((delivery.body as { n: number }).n)).toBe(delivery.eventId);
  }
}

async function killAll(workers: Worker[]) {
  for (const { child } of workers) child.kill('SIGKILL');
  return Promise.all(workers.map((w) => w.exited));
}

it(`SQLite: ${EVENTS} events survive ${KILLS} SIGKILLs mid-delivery, each accepted exactly once`, {
  timeout: 180_000,
}, async () => {
  const { tenant, server, url, secret, received } = await faultyTenant();
  const path = join(dir, 'outbox.db');
  const env = {
    STORE: 'sqlite',
    DB: path,
    LISTENER_URL: url,
    SECRET: secret,
    ENQUEUE: String(EVENTS),
    CONCURRENCY: '4',
  };
  // Each round enqueues from the first event no process announced: one announced, then lost, is missed.
  let announced = 0;
  const killed = [];
  for (let round = 0; round < KILLS; round++) {
    // Every other round, two processes share the file; the first is usually killed while still enqueueing.
    const start = () => startWorker({ ...env, ENQUEUE_FROM: String(announced) });
    const workers = round % 2 ? [start(), start()] : [start()];
    const target = tenant.deliveries.length + 5 + Math.floor((random() * EVENTS) / (KILLS + 1));
    await until(() => tenant.deliveries.length >= target, workers, `${target} deliveries (seed ${SEED})`);
    await new Promise((resolve) => setTimeout(resolve, random() * 10));
    killed.push(...(await killAll(workers)));
    announced = Math.max(announced, ...workers.map((w) => w.announced()));
  }
  expect(
    killed.every((k) => k.signal === 'SIGKILL' && !k.drained),
    `seed ${SEED}`,
  ).toBe(true);
  expect(tenant.deliveries.length).toBeLessThan(EVENTS);

  // A fresh process opens the same file and finishes the job.
  const last = await startWorker({ ...env, ENQUEUE_FROM: String(announced) }).exited;
  expect(last, `seed ${SEED}`).toMatchObject({ code: 0, drained: true });
  await server.close();
  expectExactlyOnce(tenant, EVENTS);
  const store = new SqliteOutboxStore({ path });
  expect(await store.counts(url)).toEqual({ pending: 0, delivered: EVENTS, dead: 0, expired: 0 });
  await expectEveryRequestCounted(store, received);
  await store.close();
});

it.skipIf(!pg)(
  `PostgreSQL: four workers drain ${2 * EVENTS} events, one is SIGKILLed, each accepted exactly once`,
  {
    timeout: 180_000,
  },
  async () => {
    const { tenant, server, url, secret, received } = await faultyTenant();
    const table = `${pg?.schema}.crash`;
    const store = new PostgresOutboxStore({ connectionString: pg?.url, table });
    await store.migrate();
    const outbox = new WebhookOutbox({ sender: new WebhookSender({ url, hmac: { secret } }), store });
    const count = 2 * EVENTS;
    for (let n = 0; n < count; n += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - n) }, (_, i) =>
          outbox.enqueue({ n: n + i }, { eventId: eventIdOf(n + i) }),
        ),
      );
    }
    const env = {
      STORE: 'postgres',
      DB: pg?.url ?? '',
      TABLE: table,
      LISTENER_URL: url,
      SECRET: secret,
      CONCURRENCY: '4',
    };
    const workers = Array.from({ length: 4 }, () => startWorker(env));
    const victim = workers[Math.floor(random() * 4)] as Worker;
    const target = Math.floor(count * (0.2 + random() * 0.4));
    await until(() => tenant.deliveries.length >= target, workers, `${target} deliveries (seed ${SEED})`);
    const [killed] = await killAll([victim]);
    const rest = await Promise.all(workers.filter((w) => w !== victim).map((w) => w.exited));
    expect(killed).toMatchObject({ signal: 'SIGKILL', drained: false });
    expect(rest, `seed ${SEED}`).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ code: 0, drained: true })),
    );
    await server.close();
    expectExactlyOnce(tenant, count);
    expect(await store.counts(url)).toEqual({ pending: 0, delivered: count, dead: 0, expired: 0 });
    await expectEveryRequestCounted(store, received);
    await store.close();
  },
);

if (!pg) it.skip(`PostgreSQL crash test: ${NO_POSTGRES}`, () => {});
