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
): S {
  // Aborted when a call gave up; made anew once a call succeeds (the database is back).
  let down = new AbortController();
  // The failures since the last call that succeeded, said once and then every REMIND_MS.
  let outage: { since: number; said: number; message: string } | undefined;
  const failed = (error: StoreError, pause: number) => {
    const now = performance.now();
    if (!outage) {
      outage = { since: now, said: now, message: error.message };
      logger.warn(`task sync: a store call failed (${error.message}); trying again in ${pause} ms`);
    } else if (error.message !== outage.message || now - outage.said >= REMIND_MS) {
      outage.said = now;
      outage.message = error.message;
      logger.warn(
        `task sync: store calls still fail ${seconds(now - outage.since)} later (${error.message}); trying again`,
      );
    }
  };
  const succeeded = () => {
    if (outage)
      logger.warn(`task sync: the store answers again, after ${seconds(performance.now() - outage.since)}`);
    outage = undefined;
  };
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        let since: number | undefined;
        for (let tried = 0; ; tried++) {
          try {
            const result = await value.apply(target, args);
            if (down.signal.aborted) down = new AbortController();
            succeeded();
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
            failed(error, pause);
            const waiting = signal ? AbortSignal.any([signal, down.signal]) : down.signal;
            if (!(await wait(pause, { signal: waiting }))) throw error;
          }
        }
      };
    },
  });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
