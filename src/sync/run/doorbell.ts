/**
 * How the idle cursors of one process learn that work may have changed (a window done or split, a
 * batch refreshed) without polling tightly, nor all at once: each look costs the store a claim, a
 * split and the end of the run, and most looks find nothing. The idle cursors wait in turn. A ring
 * wakes the one waiting longest, which looks, and rings again if it found work, so that the next
 * looks too; only that one also looks at a timeout (at most a quarter of a second), for other
 * workers' changes. When the run is over, all wake at once and leave.
 *
 * @module
 */

interface Waiter {
  readonly ms: number;
  readonly wake: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** A bell that wakes the idle cursors of one process one at a time. */
export class Doorbell {
  readonly #waiting: Waiter[] = [];
  #closed = false;

  /** Wakes the cursor waiting longest, if any. */
  ring(): void {
    const first = this.#waiting[0];
    if (first) this.#wake(first);
  }

  /**
   * The run is over: every cursor waiting wakes, and none waits again. A cursor that sees it
   * returns without asking the store again whether the run is over: a burst of statements, all told
   * what one was.
   */
  close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiting]) this.#wake(waiter);
  }

  /** How many cursors wait. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Resolves when rung, or when `signal` aborts; for the cursor waiting longest, after `ms` at the
   * latest from when it became so.
   */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        ms,
        wake: () => {
          signal.removeEventListener('abort', stopped);
          resolve();
        },
      };
      const stopped = () => this.#wake(waiter);
      signal.addEventListener('abort', stopped, { once: true });
      this.#waiting.push(waiter);
      this.#time();
    });
  }

  #wake(waiter: Waiter): void {
    const at = this.#waiting.indexOf(waiter);
    if (at === -1) return;
    this.#waiting.splice(at, 1);
    clearTimeout(waiter.timer);
    waiter.wake();
    this.#time();
  }

  /** Starts the timeout of the cursor now waiting longest. */
  #time(): void {
    const first = this.#waiting[0];
    if (first && first.timer === undefined) first.timer = setTimeout(() => this.#wake(first), first.ms);
  }
}
