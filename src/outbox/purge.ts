/**
 * Purges of finished events, a batch a transaction, as the SDK's stores do them: no purge, however
 * large, holds the outbox's table (SQLite: its file) long enough to hold up enqueues and renewals.
 *
 * @module
 */
import { wait } from '../internal/wait.ts';
import type { PurgeOptions } from './store.ts';

/** Events a store's purge deletes in one transaction. */
export const PURGE_BATCH = 1_000;

/**
 * Deletes by `deleteBatch` (which deletes up to {@link PURGE_BATCH} events past `seq` in one
 * transaction and answers their seqs) until a batch comes back short or `options.signal` aborts:
 * how many were deleted. With `pause`, each batch is followed by a wait as long as it took: a
 * SQLite file has one writer at a time, and an enqueue or a worker's renewal must get its turn.
 */
export async function purgeInBatches(
  deleteBatch: (after: number) => Promise<readonly number[]>,
  options: PurgeOptions,
  pause: boolean,
): Promise<number> {
  let purged = 0;
  let after = 0;
  while (!options.signal?.aborted) {
    const started = performance.now();
    const seqs = await deleteBatch(after);
    purged += seqs.length;
    if (seqs.length < PURGE_BATCH) break;
    after = Math.max(...seqs);
    if (pause) await wait(performance.now() - started, { signal: options.signal });
  }
  return purged;
}
