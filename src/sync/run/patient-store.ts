/**
 * A store whose transient failures (a database restarting, a connection dropped, a lock held a
 * moment too long) are waited out: every call is tried again with a growing pause, so a run
 * survives them. Safe because every write of a store is idempotent: a commit whose answer was lost
 * and is made again writes the same rows.
 *
 * @module
 */
import type { Logger } from '../../core/logger.ts';
import { wait } from '../../internal/wait.ts';
import { StoreError } from '../../stores/store-error.ts';
import type { SyncStore } from '../store.ts';

// Pauses between tries, in ms, growing to a few seconds.
const PAUSES = [250, 500, 1_000, 2_000, 4_000, 5_000];
// How long after a call's first failure it is tried again: longer than a database's restart. By the
// clock, not by tries: each try may itself take a connect timeout.
const PATIENCE_MS = 30_000;
// While the store fails, how often the log says it still does: every cursor's every try would
// bury the line that says why.
const REMIND_MS = 10_000;
// How long without a failure before a call that succeeds ends an outage: with many cursors, one
// call may pass while others still fail (a flapping connection, a pool at its limit).
const QUIET_MS = 1_000;
// PostgreSQL's answers to transactions that met a concurrent one (serialization, deadlock, lock
// timeout): passing by nature, said at info unless they go on.
const CONFLICTS = new Set(['40001', '40P01', '55P03']);

/**
 * `store` with each call tried again after a transient {@link StoreError}, for up to
 * {@link PATIENCE_MS}; `signal` ends the waiting. Once one call gave up, the store is taken for down:
 * calls waiting to try again fail at once, and later ones are not waited out until one succeeds,
 * so a run fails with the first call's error instead of each call waiting its own half-minute in
 * turn.
 */
export function patientStore<S extends object = SyncStore>(
  store: S,
  logger: Logger,
  signal: AbortSignal | undefined,
  outages: OutageLog = new OutageLog(logger),
): S {
  // Aborted when a call gave up; made anew once a call succeeds (the database is back).
  let down = new AbortController();
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        let since: number | undefined;
        for (let tried = 0; ; tried++) {
          try {
            const result = await value.apply(target, args);
            // PostgreSQL's `release` answers without a round trip: unless it failed first, no sign
            // that the database is back.
            if (key === 'release' && tried === 0) return result;
            if (down.signal.aborted) down = new AbortController();
            outages.succeeded();
            return result;
          } catch (error) {
            if (!(error instanceof StoreError) || !error.transient) throw error;
            // Stopping, or the store taken for down: no try again to announce.
            if (signal?.aborted || down.signal.aborted) throw error;
            since ??= performance.now();
            const pause = PAUSES[Math.min(tried, PAUSES.length - 1)] as number;
            if (performance.now() - since + pause > PATIENCE_MS) {
              down.abort(error);
              throw error;
            }
            outages.failed(error, pause);
            const waiting = signal ? AbortSignal.any([signal, down.signal]) : down.signal;
            if (!(await wait(pause, { signal: waiting }))) throw error;
          }
        }
      };
    },
  });
}

/**
 * What the log says of a store's failures: an outage once, then every {@link REMIND_MS} while it
 * lasts, and its end, rather than each call's every try.
 */
export class OutageLog {
  // `answered`: when a call first succeeded after the last failure (the outage ends once one
  // succeeds a quiet second after it); `warned`: said at warn, so its end is too.
  #outage:
    | { since: number; lastFailed: number; said: number; warned: boolean; answered?: number }
    | undefined;
  readonly #logger: Logger;
  constructor(logger: Logger) {
    this.#logger = logger;
  }

  failed(error: StoreError, pause: number): void {
    const now = performance.now();
    const conflict = error.code !== undefined && CONFLICTS.has(error.code);
    const outage = this.#outage;
    // The same outage until a call succeeded a quiet second after its last failure: failures a
    // connect timeout apart, with no call answered between them, are one.
    if (outage && (outage.answered === undefined || now - outage.lastFailed < QUIET_MS)) {
      outage.lastFailed = now;
      delete outage.answered;
      if (!outage.warned && !conflict) {
        // A conflict began it, at info; a failure that is no conflict is said as an outage at once.
        outage.warned = true;
        outage.said = now;
        this.#logger.warn(`task sync: a store call failed (${error.message}); trying again in ${pause} ms`);
      } else if (now - outage.said >= REMIND_MS) {
        outage.said = now;
        outage.warned = true;
        this.#logger.warn(
          `task sync: store calls still fail ${seconds(now - outage.since)} later (${error.message}); trying again`,
        );
      }
      return;
    }
    // One answered since, with no call to end it a quiet second after its last failure: ended then.
    if (outage) this.#ended(outage);
    this.#outage = { since: now, lastFailed: now, said: now, warned: !conflict };
    const line = `task sync: a store call failed (${error.message}); trying again in ${pause} ms`;
    if (conflict) this.#logger.info(line);
    else this.#logger.warn(line);
  }

  succeeded(): void {
    const outage = this.#outage;
    if (!outage) return;
    const now = performance.now();
    outage.answered ??= now;
    if (now - outage.lastFailed < QUIET_MS) return;
    this.#outage = undefined;
    this.#ended(outage);
  }

  /**
   * The calls are over (the run ended): an outage the store has answered since is said ended, as
   * no later call will end it.
   */
  over(): void {
    const outage = this.#outage;
    this.#outage = undefined;
    if (outage) this.#ended(outage);
  }

  #ended(outage: { since: number; warned: boolean; answered?: number }): void {
    if (!outage.warned || outage.answered === undefined) return;
    this.#logger.warn(
      `task sync: the store answers again, after ${seconds(outage.answered - outage.since)} of failures`,
    );
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
