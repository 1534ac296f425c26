/** The longest wait a timer can hold: `setTimeout` fires at once (after 1 ms) past 2^31 - 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Options of {@link wait}. */
export interface WaitOptions {
  /** Ends the wait early. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Whether the timer alone keeps a Node process running. Default true: a caller awaiting a page
   * must not see its process exit under it. False for work nobody awaits (a fake server's delayed
   * answer to a client that gave up), which must not hold a process that has nothing else to do.
   */
  readonly keepAlive?: boolean | undefined;
}

/**
 * Waits `ms`, ending early when `signal` aborts. Resolves `true` when the whole time passed and
 * `false` when the signal cut it short (at once if it was already aborted); it never rejects, so
 * each caller decides what an abort means to it (an `AbortError`, or a clean stop).
 */
export function wait(ms: number, options: WaitOptions = {}): Promise<boolean> {
  const { signal, keepAlive = true } = options;
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const end = (whole: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(whole);
    };
    const abort = () => end(false);
    const timer = setTimeout(() => end(true), ms);
    if (!keepAlive) (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * `promise`, or a rejection with `signal`'s reason as soon as it aborts: for waiting on work that
 * may ignore the signal it was given (a caller's token provider).
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
