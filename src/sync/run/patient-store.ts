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

// Pauses between tries, in ms: about half a minute in all, longer than a database's restart.
const PAUSES = [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000];

/** `store` with each call tried again after a transient {@link StoreError}; `signal` ends the waiting. */
export function patientStore(store: SyncStore, logger: Logger, signal: AbortSignal | undefined): SyncStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        for (let tried = 0; ; tried++) {
          try {
            return await value.apply(target, args);
          } catch (error) {
            const pause = PAUSES[tried];
            if (!(error instanceof StoreError) || !error.transient || pause === undefined) throw error;
            // Stopping: no try again to announce (a store told to stop fails its waits at once).
            if (signal?.aborted) throw error;
            logger.warn(`task sync: a store call failed (${error.message}); trying again in ${pause} ms`);
            if (!(await wait(pause, { signal }))) throw error;
          }
        }
      };
    },
  });
}
