/**
 * Workers whose clocks disagree: an outbox on its default clock keeps the store's time where its
 * machine's is a second or more off it, so a worker whose clock runs ahead takes over no live lease
 * (it would send an event another worker is sending), and a wall clock put right between two
 * readings changes nothing.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { MemoryOutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { PostgresOutboxStore } from '../../src/outbox/postgres-store.ts';
import type { OutboxStore } from '../../src/outbox/store.ts';
import { StoreClock } from '../../src/outbox/store-clock.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { serveOnLoopback } from '../../src/testing/loopback-server.ts';
import { WebhookHeader } from '../../src/webhooks/index.ts';
import { idgov } from '../helpers/idgov.ts';
import { eventIdOf, startWorker } from '../helpers/outbox-workers.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL clock tests: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

/** A store whose clock reads `storeTime()` (or fails with `failure`), counting the readings. */
function clockedStore(storeTime: () => number) {
  const store = new MemoryOutboxStore() as OutboxStore;
  const state = { readings: 0, failure: undefined as Error | undefined };
  store.clock = async () => {
    state.readings += 1;
    if (state.failure) throw state.failure;
    return storeTime();
  };
  return { store, state };
}

/** A wall clock and a monotonic one that the test moves, and the warnings logged. */
function machine(wall: number) {
  const clocks = { wallAt: wall, mono: 5_000 };
  const warnings: string[] = [];
  const logger = createLogger({
    debug: () => {},
    info: () => {},
    warn: (message) => warnings.push(message),
    error: () => {},
  });
  const advance = (ms: number) => {
    clocks.wallAt += ms;
    clocks.mono += ms;
  };
  return {
    clocks,
    warnings,
    logger,
    advance,
    read: { wall: () => clocks.wallAt, monotonic: () => clocks.mono },
  };
}

describe('StoreClock', () => {
  const T = 1_800_000_000_000;

  it("keeps this machine's time when the store has no clock, or one within a second of it", async () => {
    const m = machine(T);
    const none = new StoreClock(new MemoryOutboxStore(), m.logger, m.read);
    await none.settle();
    expect(none.now()).toBe(T);
    const { store } = clockedStore(() => m.clocks.wallAt + 900);
    const close = new StoreClock(store, m.logger, m.read);
    await close.settle();
    expect(close.now()).toBe(T);
    expect(m.warnings).toEqual([]);
  });

  it("follows the store's clock where this machine's is 30 s ahead, and says so once", async () => {
    const m = machine(T);
    const storeTime = () => m.clocks.wallAt - 30_000; // the store's time, as the machine's runs
    const { store, state } = clockedStore(storeTime);
    const clock = new StoreClock(store, m.logger, m.read);
    expect(clock.now()).toBe(T); // before any reading
    await clock.settle();
    expect(clock.now()).toBe(T - 30_000);
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toContain(
      "webhook outbox: this machine's clock is 30.0 s ahead of the store's; leases and retry times follow the store's clock. Set this machine's clock right (NTP).",
    );
    m.advance(10_000);
    expect(clock.now()).toBe(T - 20_000);
    // Read again a minute on, not before; the same gap is not said again.
    await clock.settle();
    expect(state.readings).toBe(1);
    m.advance(50_000);
    await clock.settle();
    expect(state.readings).toBe(2);
    expect(m.warnings).toHaveLength(1);
  });

  it('is not moved by the wall clock put forward or back between two readings', async () => {
    const m = machine(T);
    let storeAt = T;
    const { store } = clockedStore(() => storeAt);
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    expect(clock.now()).toBe(T);
    // An hour forward (a clock put "right" wrongly): the store's time still runs with the machine's.
    m.clocks.wallAt += 3_600_000;
    m.advance(1_000);
    storeAt += 1_000;
    expect(clock.now()).toBe(T + 1_000);
    m.clocks.wallAt -= 7_200_000; // and an hour back
    expect(clock.now()).toBe(T + 1_000);
  });

  it('reads the store again at once after the machine slept (the monotonic clock stood still)', async () => {
    const m = machine(T);
    const { store, state } = clockedStore(() => m.clocks.wallAt + 30_000);
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    expect(clock.now()).toBe(T + 30_000);
    m.clocks.wallAt += 3_600_000; // an hour asleep: the wall clock counts it, the monotonic one not
    expect(clock.now()).toBe(T + 30_000); // carried by the monotonic clock until read again
    await clock.settle();
    expect(state.readings).toBe(2);
    expect(clock.now()).toBe(T + 3_630_000);
  });

  it('a reading that fails keeps the last one; a first one that fails rejects, as a store call would', async () => {
    const m = machine(T);
    const { store, state } = clockedStore(() => m.clocks.wallAt + 60_000);
    state.failure = new Error('connection refused');
    const clock = new StoreClock(store, m.logger, m.read);
    await expect(clock.settle()).rejects.toThrow('connection refused');
    state.failure = undefined;
    await clock.settle();
    expect(clock.now()).toBe(T + 60_000);
    state.failure = new Error('connection refused');
    m.advance(61_000);
    await clock.settle();
    expect(clock.now()).toBe(T + 121_000);
  });

  it('an outbox given its own clock takes it as it is: the store is never asked the time', async () => {
    const { store, state } = clockedStore(() => 0);
    const outbox = new WebhookOutbox({
      sender: new (await import('../../src/webhooks/index.ts')).WebhookSender({
        url: 'https://acme.example.com/api/v1/webhooks/incoming/l1',
        hmac: { secret: 's' },
      }),
      store,
      now: () => T,
      logLevel: 'off',
    });
    await outbox.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    expect((await outbox.get(eventIdOf(1)))?.enqueuedAt).toBe(T);
    expect(state.readings).toBe(0);
  });
});

const clockOff = fileURLToPath(new URL('../fixtures/clock-off.ts', import.meta.url));

describe.skipIf(!pg)("PostgreSQL: a worker whose machine's clock is 30 s ahead", () => {
  it('neither takes over a live lease nor retries it from the command line: the event is sent once', async () => {
    const table = `${pg?.schema}.clock_ahead`;
    const store = new PostgresOutboxStore({ connectionString: pg?.url, table });
    await store.migrate();
    // A listener that takes 6 s over each delivery, every request counted.
    const tenant = new FakeTenant({ faults: { slow: 1, slowMs: 6_000, seed: 1 } });
    const { id, secret = '' } = tenant.addListener();
    let requests = 0;
    const server = await serveOnLoopback((request, remoteAddress) => {
      if (request.headers.get(WebhookHeader.EVENT_ID)) requests += 1;
      return tenant.handle(request, { remoteAddress });
    });
    tenant.baseUrl = server.url;
    const url = tenant.listener(id)?.url ?? '';
    const { WebhookSender } = await import('../../src/webhooks/index.ts');
    // This worker's clock is right; its lease (2 s) is renewed while the slow attempt runs.
    const outbox = new WebhookOutbox({
      sender: new WebhookSender({ url, hmac: { secret } }),
      store,
      leaseMs: 2_000,
      attemptTimeoutMs: 20_000,
      logLevel: 'off',
    });
    await outbox.enqueue({ n: 0 }, { eventId: eventIdOf(0) });
    const draining = outbox.drain();
    while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const ahead = { CLOCK_OFF_MS: '30000', NODE_OPTIONS: `--import ${clockOff}` };
    const retried = await idgov(
      ['outbox', 'retry', '--postgres', pg?.url ?? '', '--table', table, eventIdOf(0)],
      ahead,
    );
    expect(retried.code, retried.stderr).toBe(1);
    expect(retried.stdout).toContain('has an attempt in flight');
    expect(retried.stderr).toContain("this machine's clock is 30.0 s ahead of the store's");
    const worker = startWorker({
      ...ahead,
      STORE: 'postgres',
      DB: pg?.url ?? '',
      TABLE: table,
      LISTENER_URL: url,
      SECRET: secret,
      ENQUEUE: '0',
    });
    const drained = await draining;
    // Done once nothing is pending; a worker that sent the event too is stopped after 15 s.
    const stopping = setTimeout(() => worker.child.kill('SIGKILL'), 15_000);
    const other = await worker.exited;
    clearTimeout(stopping);
    await server.close();
    await store.close();
    expect(requests, other.stderr).toBe(1);
    expect(drained).toMatchObject({ attempts: 1, delivered: 1 });
    expect(other, other.stderr).toMatchObject({ code: 0, drained: true });
    expect(other.stderr).toMatch(/waiting for event \S+, held by/);
  }, 40_000);
});
