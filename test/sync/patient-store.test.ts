/**
 * How the sync waits out a store's transient failures: about half a minute by the clock after a
 * call's first failure (each try may itself take a connect timeout), and once one call gave up, no
 * other call waits its own half-minute in turn.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../src/index.ts';
import type { SyncStore } from '../../src/sync/index.ts';
import { OutageLog, patientStore } from '../../src/sync/run/patient-store.ts';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const down = () => new StoreError('connect ETIMEDOUT', { transient: true });

/** A store whose `open` fails transiently after `tryMs`, and whose `unfinishedRun` fails at once, counting tries. */
function failingStore(tryMs: number) {
  const tries = { open: 0, unfinishedRun: 0 };
  const store = {
    async open() {
      tries.open += 1;
      await new Promise((resolve) => setTimeout(resolve, tryMs));
      throw down();
    },
    async unfinishedRun() {
      tries.unfinishedRun += 1;
      throw down();
    },
  } as unknown as SyncStore;
  return { store, tries };
}

// Every test here runs on fake timers and a fake monotonic clock.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a store that stays down', () => {
  it('a call whose every try takes a 10 s connect timeout gives up about half a minute after its first failure', async () => {
    const { store, tries } = failingStore(10_000);
    const started = performance.now();
    const patient = patientStore(store, quiet, undefined).open({ baseUrl: 'https://t.example', filter: '' });
    const failed = patient.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.runAllTimersAsync();
    expect(await failed).toBeInstanceOf(StoreError);
    const elapsed = performance.now() - started;
    // Tried for 30 s after the first failure (at 10 s), not nine tries of 10 s each and their pauses.
    expect(elapsed).toBeGreaterThanOrEqual(40_000);
    expect(elapsed).toBeLessThanOrEqual(50_000);
    expect(tries.open).toBeLessThan(6);
  });

  it('once a call gave up, a call waiting to try again fails at once, and a later one is tried only once', async () => {
    const { store, tries } = failingStore(0);
    const patient = patientStore(store, quiet, undefined);
    const first = patient.open({ baseUrl: 'https://t.example', filter: '' }).catch((error: unknown) => error);
    // The second call starts 20 s later: its own half-minute would run to 50 s.
    await vi.advanceTimersByTimeAsync(20_000);
    const second = patient.unfinishedRun().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(11_000);
    expect(await first).toBeInstanceOf(StoreError);
    expect(await second).toBeInstanceOf(StoreError);
    const checkTries = tries.unfinishedRun;
    await expect(patient.unfinishedRun()).rejects.toBeInstanceOf(StoreError);
    expect(tries.unfinishedRun).toBe(checkTries + 1);
  });

  it('is patient again once a call succeeds: the database came back', async () => {
    let up = true;
    let tries = 0;
    const store = {
      async open() {
        if (!up) throw down();
        return {};
      },
      async unfinishedRun() {
        tries += 1;
        // Down for a moment: answered on the third try.
        if (tries < 3) throw down();
      },
    } as unknown as SyncStore;
    const patient = patientStore(store, quiet, undefined);
    up = false;
    const gaveUp = patient
      .open({ baseUrl: 'https://t.example', filter: '' })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(await gaveUp).toBeInstanceOf(StoreError);
    up = true;
    await patient.open({ baseUrl: 'https://t.example', filter: '' });
    const called = patient.unfinishedRun();
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(called).resolves.toBeUndefined();
    expect(tries).toBe(3);
  });
});

/** A patient store over calls made by `call` (as `unfinishedRun`), its outage log, and the warnings it logs. */
function watched(call: () => Promise<void>) {
  const warned: string[] = [];
  const store = { unfinishedRun: call } as unknown as SyncStore;
  const outages = new OutageLog({ ...quiet, warn: (m) => void warned.push(m) });
  const patient = patientStore(store, quiet, undefined, outages);
  return { patient, outages, warned };
}

/**
 * An outage whose calls pass within a second of its last failure, with no call after them: not yet
 * over. Call a fails at 0, 0.25, 0.75 and 1.75 s, and is tried again at 3.75 s; call b fails at
 * 3.5 s. The store is back at 3.6 s: both pass at 3.75 s, within a second of b's failure.
 */
async function answeredWithinASecond() {
  const store = { up: false };
  const watching = watched(async () => {
    if (!store.up) throw down();
  });
  const a = watching.patient.unfinishedRun();
  await vi.advanceTimersByTimeAsync(3_500);
  const b = watching.patient.unfinishedRun();
  await vi.advanceTimersByTimeAsync(100);
  store.up = true;
  await vi.advanceTimersByTimeAsync(1_000);
  await Promise.all([a, b]);
  expect(watching.warned.filter((m) => /answers again/.test(m))).toEqual([]);
  return { ...watching, store };
}

describe('a store down for a while under many cursors', () => {
  it('says the outage once, again every 10 s while it lasts, and its end: not each call and try', async () => {
    let up = false;
    const { patient, warned } = watched(async () => {
      if (!up) throw down();
    });
    // Sixteen cursors' calls, during 25 s of a database restarting.
    const calls = Array.from({ length: 16 }, () => patient.unfinishedRun());
    await vi.advanceTimersByTimeAsync(25_000);
    up = true;
    await vi.advanceTimersByTimeAsync(6_000);
    await Promise.all(calls);
    expect(warned).toEqual([
      'task sync: a store call failed (@idgov/sdk: connect ETIMEDOUT); trying again in 250 ms',
      expect.stringMatching(
        /^task sync: store calls still fail 1\d\.\d s later \(@idgov\/sdk: connect ETIMEDOUT\); trying again$/,
      ),
      expect.stringMatching(
        /^task sync: store calls still fail 2\d\.\d s later \(@idgov\/sdk: connect ETIMEDOUT\); trying again$/,
      ),
      expect.stringMatching(/^task sync: the store answers again, after 2\d\.\d s of failures$/),
    ]);
  });

  it('a connection that flaps for 30 s is one outage, said every 10 s, not one per call that passes', async () => {
    let flapping = true;
    const { patient, warned } = watched(async () => {
      // Down 200 ms, up 200 ms.
      if (flapping && Math.floor(performance.now() / 200) % 2 === 0) throw down();
    });
    // Eight calls every 100 ms, as cursors make them.
    const made: Promise<unknown>[] = [];
    for (let t = 0; t < 300; t++) {
      for (let i = 0; i < 8; i++) made.push(patient.unfinishedRun());
      await vi.advanceTimersByTimeAsync(100);
    }
    flapping = false;
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(made);
    await patient.unfinishedRun();
    expect(warned[0]).toMatch(/^task sync: a store call failed/);
    expect(warned.filter((m) => /still fail/.test(m)).length).toBeGreaterThanOrEqual(2);
    expect(warned.filter((m) => /still fail/.test(m)).length).toBeLessThanOrEqual(3);
    expect(warned.at(-1)).toMatch(/^task sync: the store answers again, after (29|30)\.\d s of failures$/);
    expect(warned.filter((m) => /answers again/.test(m))).toHaveLength(1);
  });

  it('a deadlock met once is said at info, not as an outage', async () => {
    let tries = 0;
    const store = {
      async unfinishedRun() {
        tries += 1;
        if (tries === 1)
          throw new StoreError('deadlock detected (40P01)', { transient: true, code: '40P01' });
      },
    } as unknown as SyncStore;
    const said: string[] = [];
    const log = (level: string) => (m: string) => void said.push(`${level}: ${m}`);
    const patient = patientStore(store, { ...quiet, info: log('info'), warn: log('warn') }, undefined);
    const called = patient.unfinishedRun();
    await vi.advanceTimersByTimeAsync(2_000);
    await called;
    await vi.advanceTimersByTimeAsync(2_000);
    await patient.unfinishedRun();
    expect(said).toEqual([
      'info: task sync: a store call failed (@idgov/sdk: deadlock detected (40P01)); trying again in 250 ms',
    ]);
  });

  it('an outage that begins right after a conflict is said at warn at once, and its end too', async () => {
    let mode: 'deadlock' | 'down' | 'up' = 'deadlock';
    const store = {
      async unfinishedRun() {
        if (mode === 'deadlock') {
          mode = 'down';
          throw new StoreError('deadlock detected (40P01)', { transient: true, code: '40P01' });
        }
        if (mode === 'down') throw down();
      },
    } as unknown as SyncStore;
    const said: string[] = [];
    const log = (level: string) => (m: string) => void said.push(`${level}: ${m}`);
    const patient = patientStore(store, { ...quiet, info: log('info'), warn: log('warn') }, undefined);
    const calls = [
      patient.unfinishedRun(),
      patient.unfinishedRun(),
      patient.unfinishedRun(),
      patient.unfinishedRun(),
    ];
    await vi.advanceTimersByTimeAsync(8_000);
    mode = 'up';
    await vi.advanceTimersByTimeAsync(6_000);
    await Promise.all(calls);
    await vi.advanceTimersByTimeAsync(2_000);
    await patient.unfinishedRun();
    expect(said).toEqual([
      'info: task sync: a store call failed (@idgov/sdk: deadlock detected (40P01)); trying again in 250 ms',
      'warn: task sync: a store call failed (@idgov/sdk: connect ETIMEDOUT); trying again in 250 ms',
      expect.stringMatching(
        /^warn: task sync: the store answers again, after (8|9|10|11|12)\.\d s of failures$/,
      ),
    ]);
  });

  it('tries a connect timeout apart (10 s each, nothing answered between) are one outage, reminded, of its length', async () => {
    let up = false;
    const { patient, warned } = watched(async () => {
      if (up) return;
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      throw down();
    });
    const call = patient.unfinishedRun();
    await vi.advanceTimersByTimeAsync(25_000);
    up = true;
    await vi.advanceTimersByTimeAsync(10_000);
    await call;
    await vi.advanceTimersByTimeAsync(2_000);
    await patient.unfinishedRun();
    expect(warned).toEqual([
      'task sync: a store call failed (@idgov/sdk: connect ETIMEDOUT); trying again in 250 ms',
      expect.stringMatching(/^task sync: store calls still fail 10\.\d s later/),
      expect.stringMatching(/^task sync: store calls still fail 20\.\d s later/),
      expect.stringMatching(/^task sync: the store answers again, after 2\d\.\d s of failures$/),
    ]);
  });

  it('an outage answered, then a failure seconds later with no call between: the first is said ended, the second begun', async () => {
    const { patient, warned, store } = await answeredWithinASecond();
    store.up = false;
    await vi.advanceTimersByTimeAsync(5_000);
    const c = patient.unfinishedRun();
    await vi.advanceTimersByTimeAsync(1_000);
    store.up = true;
    await vi.advanceTimersByTimeAsync(5_000);
    await c;
    expect(warned.map((m) => /a store call failed|answers again, after \S+/.exec(m)?.[0])).toEqual([
      'a store call failed',
      'answers again, after 3.8',
      'a store call failed',
      'answers again, after 1.8',
    ]);
  });
});

describe('the end of a run', () => {
  it('says an outage answered in its last second ended, as no later call will', async () => {
    // The run's last calls pass within a second of a failure: not yet over by the quiet second.
    const { outages, warned } = await answeredWithinASecond();
    outages.over();
    expect(warned.at(-1)).toMatch(/^task sync: the store answers again, after 3\.8 s of failures$/);
    outages.over();
    expect(warned.filter((m) => /answers again/.test(m))).toHaveLength(1);
  });

  it("says nothing more of an outage the store never answered: the run's failure says it", async () => {
    const { patient, outages, warned } = watched(async () => {
      throw down();
    });
    const gaveUp = patient.unfinishedRun().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await gaveUp).toBeInstanceOf(StoreError);
    const before = warned.length;
    outages.over();
    expect(warned).toHaveLength(before);
    expect(warned.some((m) => /answers again/.test(m))).toBe(false);
  });

  it("takes no release for an answer: PostgreSQL's answers without the database", async () => {
    const warned: string[] = [];
    const outages = new OutageLog({ ...quiet, warn: (m) => void warned.push(m) });
    const store = {
      async open() {
        throw down();
      },
      async release() {},
    } as unknown as SyncStore;
    const patient = patientStore(store, quiet, undefined, outages);
    const opened = patient
      .open({ baseUrl: 'https://t.example', filter: '' })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await opened).toBeInstanceOf(StoreError);
    // The run failed; it lets go of the copy, and ends.
    await patient.release();
    outages.over();
    expect(warned.filter((m) => /answers again/.test(m))).toEqual([]);
  });
});
