/**
 * The worker thread of a `SqliteSyncStore`: opens the copy (sqlite-copy.ts) and runs each call the
 * store posts, answering with its value or its error. `node:sqlite` writes synchronously; here they
 * hold this thread, while the process's event loop goes on fetching pages.
 *
 * @internal
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteCopy } from './copy.ts';
import { type ThreadRequest, toWire } from './thread-messages.ts';

let copy: SqliteCopy | undefined;
let failedToOpen: unknown;
try {
  copy = new SqliteCopy(workerData);
} catch (error) {
  failedToOpen = error;
}

parentPort?.on('message', async ({ id, method, args }: ThreadRequest) => {
  try {
    if (!copy) {
      // A copy that never opened has nothing to close.
      if (method === 'close') {
        parentPort?.postMessage({ id, ok: true, value: undefined });
        return;
      }
      throw failedToOpen;
    }
    const work = (copy as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
    if (typeof work !== 'function') throw new Error(`SqliteCopy has no method ${method}`);
    parentPort?.postMessage({ id, ok: true, value: await work.apply(copy, [...args]) });
  } catch (error) {
    parentPort?.postMessage({ id, ok: false, error: toWire(error) });
  }
});
