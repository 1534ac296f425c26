/**
 * Workers whose clocks disagree: an outbox on its default clock keeps the store's time where its
 * machine's is a second or more off it, so a worker whose clock runs ahead takes over no live lease
 * (it would send an event another worker is sending), and a wall clock put right between two
 * readings changes nothing.
 */
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionError } from '../../src/core/errors/errors.ts';
import { createLogger } from '../../src/core/logger.ts';
import { MemoryOutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { PostgresOutboxStore } from '../../src/outbox/postgres-store.ts';
import type { OutboxStore } from '../../src/outbox/store.ts';
import { StoreClock } from '../../src/outbox/store-clock.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { serveOnLoopback } from '../../src/testing/loopback-server.ts';
import { WebhookHeader, WebhookSender } from '../../src/webhooks/index.ts';
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

/** A logger that keeps the warnings. */
function warningsKept() {
  const warnings: string[] = [];
  const logger = createLogger({
    debug: () => {},
    info: () => {},
    warn: (message) => warnings.push(message),
    error: () => {},
  });
  return { warnings, logger };
}

/** A wall clock and a monotonic one that the test moves, and the warnings logged. */
function machine(wall: number) {
  const clocks = { wallAt: wall, mono: 5_000 };
  const { warnings, logger } = warningsKept();
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

const T = 1_800_000_000_000;
const url = 'https://acme.example.com/api/v1/webhooks/incoming/l1';
const HOUR = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A sender whose every send takes `ms` and is delivered, its event ID told to `sent` first. */
function slowSender(ms: number, sent: (eventId: string) => void = () => {}): WebhookSender {
  const sender = new WebhookSender({ url, hmac: { secret: 's' } });
  sender.send = async (_body, options) => {
    const eventId = options?.eventId ?? '';
    sent(eventId);
    await sleep(ms);
    return {
      status: 'delivered',
      eventId,
      attempts: 1,
      httpStatus: 200,
      history: [],
      earlierAttemptUnanswered: false,
    };
  };
  return sender;
}

/** Every store call (clock() included) takes `ms`, as over a slow network or a busy pool. */
function slowStore(ms: number, inner: OutboxStore = new MemoryOutboxStore()) {
  const calls: Record<string, number> = {};
  const store = new Proxy(inner as OutboxStore & { clock?: () => Promise<number> }, {
    get(target, key, receiver) {
      if (key === 'clock')
        return async () => {
          calls.clock = (calls.clock ?? 0) + 1;
          await sleep(ms);
          return Date.now();
        };
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        calls[String(key)] = (calls[String(key)] ?? 0) + 1;
        await sleep(ms);
        return value.apply(target, args);
      };
    },
  });
  return { store, calls };
}

describe('StoreClock', () => {
  it("keeps this machine's time when the store has no clock; the store's, to the ms, when it has one", async () => {
    const m = machine(T);
    const none = new StoreClock(new MemoryOutboxStore(), m.logger, m.read);
    await none.settle();
    expect(none.now()).toBe(T);
    // Within a second, no warning, but still the store's time: two workers each a second off,
    // either way, would be two seconds apart, longer than the shortest lease.
    const { store } = clockedStore(() => m.clocks.wallAt + 900);
    const close = new StoreClock(store, m.logger, m.read);
    await close.settle();
    expect(close.now()).toBe(T + 900);
    expect(m.warnings).toEqual([]);
  });

  it("follows the store's clock where this machine's is 30 s ahead, and says so once", async () => {
    const m = machine(T);
    const { store, state } = clockedStore(() => m.clocks.wallAt - 30_000);
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
    m.clocks.wallAt += HOUR; // a clock put "right" wrongly
    m.advance(1_000);
    storeAt += 1_000;
    expect(clock.now()).toBe(T + 1_000);
    m.clocks.wallAt -= 2 * HOUR; // and an hour back
    expect(clock.now()).toBe(T + 1_000);
  });

  it('reads the store again at once after the machine slept (the monotonic clock stood still)', async () => {
    const m = machine(T);
    const { store, state } = clockedStore(() => m.clocks.wallAt + 30_000);
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    m.clocks.wallAt += HOUR; // an hour asleep: the wall clock counts it, the monotonic one not
    await clock.settle();
    expect(state.readings).toBe(2);
    expect(clock.now()).toBe(T + HOUR + 30_000);
  });

  it("after a sleep, a reading that fails rejects and leaves this machine's time, not one an hour old", async () => {
    const m = machine(T);
    const { store, state } = clockedStore(() => m.clocks.wallAt);
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    m.clocks.wallAt += HOUR;
    state.failure = new Error('Connection terminated unexpectedly'); // a pooled connection that died in the sleep
    await expect(clock.settle()).rejects.toThrow('Connection terminated');
    expect(clock.now()).toBe(T + HOUR);
  });

  it('a reading that fails keeps the last one where the clocks did not move apart; a first one that fails rejects', async () => {
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

  it('a slow reading (a connection made first) is taken again, and the fastest kept', async () => {
    const m = machine(T);
    const trips = [3_000, 4];
    const { store, state } = clockedStore(() => {
      // The store answers at the end of the round trip; the reading is taken halfway through it.
      const trip = trips.shift() ?? 4;
      m.advance(trip / 2);
      const at = m.clocks.wallAt;
      m.advance(trip / 2);
      return at;
    });
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    expect(state.readings).toBe(2);
    expect(clock.now()).toBe(m.clocks.wallAt);
    expect(m.warnings).toEqual([]);
  });

  it('an outbox given its own clock takes it as it is: the store is never asked the time', async () => {
    const { store, state } = clockedStore(() => 0);
    const outbox = new WebhookOutbox({ sender: slowSender(0), store, now: () => T, logLevel: 'off' });
    await outbox.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect((await outbox.get(eventIdOf(1)))?.enqueuedAt).toBe(T);
    expect(state.readings).toBe(0);
  });

  it('a clock() that gives no time is refused, naming it', async () => {
    const m = machine(T);
    const { store } = clockedStore(() => Number.NaN);
    await expect(new StoreClock(store, m.logger, m.read).settle()).rejects.toThrow(
      "the store's clock() must give Unix ms (got NaN)",
    );
  });
});

describe("an outbox on its default clock, over a store whose clock is an hour off this machine's", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("dates an enqueued event by the store's clock", async () => {
    const { store } = clockedStore(() => Date.now() + HOUR);
    const outbox = new WebhookOutbox({
      sender: new WebhookSender({ url, hmac: { secret: 's' } }),
      store,
      logLevel: 'off',
    });
    await outbox.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    const enqueuedAt = (await outbox.get(eventIdOf(1)))?.enqueuedAt ?? 0;
    expect(Math.abs(enqueuedAt - (Date.now() + HOUR))).toBeLessThan(1_000);
  });

  it("refuses to retry an event whose attempt is in flight, by the lease its holder wrote by the store's clock", async () => {
    const { store } = clockedStore(() => Date.now() - HOUR);
    let answer = () => {};
    const sender = new WebhookSender({ url, hmac: { secret: 's' } });
    sender.send = () =>
      new Promise((_resolve, reject) => {
        answer = () => reject(new ConnectionError('socket hang up', { code: 'ECONNRESET' }));
      });
    const holder = new WebhookOutbox({ sender, store, logLevel: 'off' });
    await holder.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    const draining = holder.drain();
    while ((await store.leases?.(url, Date.now() - HOUR, 1))?.length !== 1)
      await new Promise((r) => setTimeout(r, 5));
    const operator = new WebhookOutbox({
      sender: new WebhookSender({ url, hmac: { secret: 's' } }),
      store,
      logLevel: 'off',
    });
    await expect(operator.retry(eventIdOf(1))).rejects.toThrow('has an attempt in flight');
    answer();
    await draining;
  });

  it("renews a lease by the store's clock after the machine slept mid-attempt: another worker does not take it", async () => {
    const realNow = Date.now.bind(Date);
    let slept = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + slept);
    const { store } = clockedStore(() => Date.now()); // the server agrees with this machine
    const sends: string[] = [];
    const sender = () => slowSender(700, (id) => sends.push(id));
    const holder = new WebhookOutbox({ sender: sender(), store, leaseMs: 1_000, logLevel: 'off' });
    await holder.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    const draining = holder.drain();
    await new Promise((resolve) => setTimeout(resolve, 100));
    slept += HOUR; // the wall clock counts the sleep, the monotonic one not
    await new Promise((resolve) => setTimeout(resolve, 350)); // the heartbeat renews meanwhile
    const other = new WebhookOutbox({ sender: sender(), store, leaseMs: 1_000, logLevel: 'off' });
    expect(await other.drain()).toMatchObject({ attempts: 0 });
    await draining;
    expect(sends).toEqual([eventIdOf(1)]);
  });

  it('dates an attempt the machine slept through by the time after the sleep', async () => {
    const realNow = Date.now.bind(Date);
    let slept = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + slept);
    const { store } = clockedStore(() => Date.now());
    const sender = new WebhookSender({ url, hmac: { secret: 's' } });
    sender.send = async () => {
      slept += HOUR;
      throw new ConnectionError('socket hang up', { code: 'ECONNRESET' });
    };
    const outbox = new WebhookOutbox({ sender, store, logLevel: 'off', retrySchedule: [60_000] });
    await outbox.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    expect(await outbox.drain()).toMatchObject({ retried: 1 });
    const event = await store.get(eventIdOf(1));
    expect(Math.abs((event?.lastAttemptAt ?? 0) - Date.now())).toBeLessThan(1_000);
    expect((event?.nextAttemptAt ?? 0) - Date.now()).toBeGreaterThan(50_000);
  });
});

describe('StoreClock, on a bad day', () => {
  it("settle('moved') does not wait for a reading merely due (a heartbeat), but starts it; it waits after a jump", async () => {
    const m = machine(T);
    let release = () => {};
    const { store, state } = clockedStore(() => m.clocks.wallAt);
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    const slow = store.clock;
    store.clock = async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return (slow as () => Promise<number>)();
    };
    m.advance(61_000);
    let waited = false;
    await Promise.race([clock.settle('moved'), sleep(50).then(() => (waited = true))]);
    expect(waited).toBe(false);
    m.clocks.wallAt += 5_000; // a jump: the time carried is wrong now
    const settled = clock.settle('moved').then(() => 'settled');
    expect(await Promise.race([settled, sleep(50).then(() => 'waiting')])).toBe('waiting');
    // The reading under way spanned the jump: it is taken again.
    let done = false;
    void settled.then(() => {
      done = true;
    });
    while (!done) {
      release();
      await sleep(5);
    }
    expect(state.readings).toBe(3);
    expect(clock.now()).toBe(m.clocks.wallAt);
  });

  it('a reading the machine slept through is taken again (its time may be from before the sleep)', async () => {
    const m = machine(T);
    let sleepDuringNextRead = false;
    const store = new MemoryOutboxStore() as OutboxStore;
    let readings = 0;
    store.clock = async () => {
      readings += 1;
      const serverAt = m.clocks.wallAt; // the server answers now (it agrees with this machine)...
      if (sleepDuringNextRead) {
        sleepDuringNextRead = false;
        m.clocks.wallAt += HOUR; // ...and the machine sleeps before the answer arrives
      }
      return serverAt;
    };
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    m.advance(61_000); // a minute on: due
    sleepDuringNextRead = true;
    await clock.settle();
    expect(readings).toBe(3);
    expect(Math.abs(m.clocks.wallAt - clock.now())).toBeLessThan(1_000);
  });

  it('after a sleep, callers at once share one reading: a late failure cannot undo a newer success', async () => {
    const m = machine(T);
    const store = new MemoryOutboxStore() as OutboxStore;
    const answers: Array<() => Promise<number>> = [];
    let readings = 0;
    store.clock = () => {
      readings += 1;
      const next = answers.shift();
      return next ? next() : Promise.resolve(m.clocks.wallAt - 30_000); // the server: 30 s behind this machine
    };
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    expect(clock.now()).toBe(T - 30_000);
    m.clocks.wallAt += 3_600_000; // an hour asleep
    // Two settles at once after waking (a claim, a heartbeat): one over a pooled connection that died
    // in the sleep (its error comes late), one over a fresh one.
    answers.push(
      () =>
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('Connection terminated unexpectedly')), 20),
        ),
      () => Promise.resolve(m.clocks.wallAt - 30_000),
    );
    const a = clock.settle().catch(() => 'failed');
    const b = clock.settle().catch(() => 'failed');
    await b;
    expect(await a).toBe('failed');
    await clock.settle(); // the next claim: not due, not moved: no reading
    expect({ now: clock.now(), readings }).toEqual({ now: m.clocks.wallAt - 30_000, readings: 3 });
  });

  it('a store down when a reading is due: one failed reading, then again 5 s on, not one at every call', async () => {
    const m = machine(T);
    const store = new MemoryOutboxStore() as OutboxStore;
    let readings = 0;
    let down = false;
    store.clock = async () => {
      readings += 1;
      if (down) {
        m.advance(10_000); // a connect timeout
        throw new Error('timeout expired');
      }
      return m.clocks.wallAt;
    };
    const clock = new StoreClock(store, m.logger, m.read);
    await clock.settle();
    m.advance(61_000);
    down = true;
    const before = m.clocks.mono;
    for (let n = 0; n < 5; n++) await clock.settle(); // five store calls, each then failing on its own
    expect({ readings, waitedMs: m.clocks.mono - before }).toEqual({ readings: 2, waitedMs: 10_000 });
  });

  it('twenty calls at once when a reading is due make one reading (twice at most, when slow)', async () => {
    const { store, calls } = slowStore(150);
    const clock = new StoreClock(store, warningsKept().logger);
    await Promise.all(Array.from({ length: 20 }, () => clock.settle()));
    expect(calls.clock).toBeLessThanOrEqual(2);
  });
});

describe('an outbox over a store with a clock, on a bad day', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ["the default (the store's)", undefined],
    ["the caller's (the store never asked)", () => Date.now()],
  ])(
    'a wall clock stepped 2 s during an attempt, on a store answering in 150 ms, %s clock: the heartbeat keeps the lease',
    async (_clock, now) => {
      const realNow = Date.now.bind(Date);
      let step = 0;
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() + step);
      const { store } = slowStore(150);
      const { warnings, logger } = warningsKept();
      // A lease a few round trips long: what is kept must not wait on more than one reading.
      const outbox = new WebhookOutbox({ sender: slowSender(1_500), store, leaseMs: 2_000, logger, now });
      await outbox.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
      const draining = outbox.drain();
      await sleep(300);
      step += 2_000; // NTP steps the wall clock 2 s
      const summary = await draining;
      expect(
        warnings.filter((w) => w.includes('lease')),
        JSON.stringify(warnings),
      ).toEqual([]);
      expect(summary).toMatchObject({ delivered: 1 });
    },
  );

  it('a worker 30 s ahead that slept, whose first reading after fails: it takes no live lease over', async () => {
    const realNow = Date.now.bind(Date);
    let machineOff = 30_000;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + machineOff);
    const shared = new MemoryOutboxStore();
    const sends: string[] = [];
    const sender = () => slowSender(1_000, (id) => sends.push(id));
    // The holder keeps the server's time (its machine is right).
    const holder = new WebhookOutbox({
      sender: sender(),
      store: shared,
      logLevel: 'off',
      now: () => realNow(),
    });
    // The other worker's view of the store: the server's clock, one reading failing late once told.
    let failNext = false;
    const view = new Proxy(shared as OutboxStore, {
      get(target, key, receiver) {
        if (key === 'clock')
          return async () => {
            if (failNext) {
              failNext = false;
              await sleep(20);
              throw new Error('Connection terminated unexpectedly');
            }
            return realNow();
          };
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const other = new WebhookOutbox({ sender: sender(), store: view, logLevel: 'off' });
    expect(await other.drain()).toMatchObject({ attempts: 0 }); // a first reading: the server's time
    await holder.enqueue({ n: 1 }, { eventId: eventIdOf(1) });
    const holding = holder.drain();
    while (sends.length === 0) await sleep(5);
    machineOff += 3_600_000; // the other machine slept an hour (its wall clock counts it)
    failNext = true;
    const enqueued = other.enqueue({ n: 2 }, { eventId: eventIdOf(2) }); // a dead pooled connection
    await other.drain().catch(() => {}); // a fresh one: reads the server's time again
    await enqueued;
    await other.drain(); // within the minute: no reading
    await holding;
    expect(sends.filter((id) => id === eventIdOf(1))).toEqual([eventIdOf(1)]);
  });

  it("enqueue stores the event while clock() fails and add() works (dated by this machine's clock)", async () => {
    const store = new MemoryOutboxStore() as OutboxStore;
    store.clock = async () => {
      throw new ConnectionError('clock unavailable', { code: 'ECONNRESET' });
    };
    const outbox = new WebhookOutbox({
      sender: new WebhookSender({ url, hmac: { secret: 's' } }),
      store,
      logLevel: 'off',
    });
    await expect(outbox.enqueue({ n: 1 })).resolves.toBeDefined();
  });
});

const clockOff = fileURLToPath(new URL('../fixtures/clock-off.ts', import.meta.url));

/**
 * A worker of this process (its clock right) holds one event, whose listener answers once a
 * worker of another process, whose clock is `offMs` off, draining the same table meanwhile, says
 * it waits for it (or sends it too); `between()` runs while the event is held. Resolves with the requests the listener received.
 */
async function heldWhileAnotherDrains(
  table: string,
  offMs: number,
  leaseMs: number,
  between: (env: Record<string, string>) => Promise<void> = async () => {},
) {
  const store = new PostgresOutboxStore({ connectionString: pg?.url, table: `${pg?.schema}.${table}` });
  await store.migrate();
  const tenant = new FakeTenant();
  const { id, secret = '' } = tenant.addListener();
  let requests = 0;
  // The listener answers once the other worker said it waits for the event, or sent it too.
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const server = await serveOnLoopback(async (request, remoteAddress) => {
    if (request.headers.get(WebhookHeader.EVENT_ID)) {
      requests += 1;
      if (requests > 1) answer();
      await answered;
    }
    return tenant.handle(request, { remoteAddress });
  });
  tenant.baseUrl = server.url;
  const url = tenant.listener(id)?.url ?? '';
  const outbox = new WebhookOutbox({
    sender: new WebhookSender({ url, hmac: { secret } }),
    store,
    leaseMs,
    attemptTimeoutMs: 20_000,
    logLevel: 'off',
  });
  await outbox.enqueue({ n: 0 }, { eventId: eventIdOf(0) });
  const draining = outbox.drain();
  while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  const off = { CLOCK_OFF_MS: String(offMs), NODE_OPTIONS: `--import ${clockOff}` };
  await between(off);
  const worker = startWorker({
    ...off,
    STORE: 'postgres',
    DB: pg?.url ?? '',
    TABLE: `${pg?.schema}.${table}`,
    LISTENER_URL: url,
    SECRET: secret,
    ENQUEUE: '0',
    LEASE_MS: String(leaseMs),
  });
  worker.child.stderr?.on('data', (chunk) => {
    if (String(chunk).includes('waiting for event')) answer();
  });
  void worker.exited.then(answer);
  const drained = await draining;
  // Done once nothing is pending; a worker that sent the event too is stopped after 15 s.
  const stopping = setTimeout(() => worker.child.kill('SIGKILL'), 15_000);
  const other = await worker.exited;
  clearTimeout(stopping);
  await server.close();
  await store.close();
  return { requests, drained, other };
}

describe.skipIf(!pg)("PostgreSQL: a worker on a machine whose clock is off the server's", () => {
  it('30 s ahead: neither takes over a live lease nor retries it from the command line, and status dates it right', async () => {
    const table = 'clock_ahead';
    const { requests, drained, other } = await heldWhileAnotherDrains(table, 30_000, 2_000, async (off) => {
      const target = ['--postgres', pg?.url ?? '', '--table', `${pg?.schema}.${table}`];
      const retried = await idgov(['outbox', 'retry', ...target, eventIdOf(0)], off);
      expect(retried.code, retried.stderr).toBe(1);
      expect(retried.stdout).toContain('has an attempt in flight');
      expect(retried.stderr).toContain("this machine's clock is 30.0 s ahead of the store's");
      const status = await idgov(['outbox', 'status', '--json', ...target], off);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).oldestPendingAgeSeconds).toBeLessThan(20);
    });
    expect(requests, other.stderr).toBe(1);
    expect(drained).toMatchObject({ attempts: 1, delivered: 1 });
    expect(other, other.stderr).toMatchObject({ code: 0, drained: true });
    expect(other.stderr).toMatch(/waiting for event \S+, held by/);
  }, 40_000);

  it("0.9 s ahead, with the shortest lease (1 s): it still keeps the server's time, unwarned, and sends nothing", async () => {
    const { requests, other } = await heldWhileAnotherDrains('clock_close', 900, 1_000);
    expect(requests, other.stderr).toBe(1);
    expect(other, other.stderr).toMatchObject({ code: 0, drained: true });
    expect(other.stderr).not.toContain("this machine's clock is");
  }, 40_000);

  it('a first reading over a connection slow to open is not taken for a clock that is off', async () => {
    const proxy = await slowProxy(new URL(pg?.url ?? ''), 3_000);
    const store = new PostgresOutboxStore({ connectionString: proxy.url, table: `${pg?.schema}.clock_slow` });
    const m = machine(Date.now());
    const clock = new StoreClock(store, m.logger);
    await clock.settle();
    const off = clock.now() - Date.now();
    await store.close();
    await proxy.close();
    expect(m.warnings).toEqual([]);
    expect(Math.abs(off)).toBeLessThan(100);
  }, 30_000);
});

/** A TCP proxy to `target` that holds each new connection `delayMs` before it reaches it. */
async function slowProxy(target: URL, delayMs: number) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.pause();
    setTimeout(() => {
      const upstream = connect(Number(target.port), target.hostname, () => {
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
