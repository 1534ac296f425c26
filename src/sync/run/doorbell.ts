/**
 * How the idle cursors of one process learn that work may have changed (a window done or split, a
 * batch refreshed) without polling tightly: they wait for the bell or a timeout, whichever comes
 * first. Other workers' changes are seen at the timeout (a quarter of a second).
 *
 * @module
 */
import { wait } from '../../internal/wait.ts';

/** A bell that wakes every cursor waiting on it. */
export class Doorbell {
  #wake: () => void = () => {};
  #rung = this.#next();

  #next(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  /** Wakes every cursor waiting now. */
  ring(): void {
    this.#wake();
    this.#rung = this.#next();
  }

  /** Resolves at the next ring, after `ms`, or when `signal` aborts, whichever comes first. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    const timeout = new AbortController();
    const stop = AbortSignal.any([signal, timeout.signal]);
    await Promise.race([wait(ms, { signal: stop }), this.#rung]);
    timeout.abort();
  }
}
