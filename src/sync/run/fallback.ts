/**
 * A way of paging that a run uses until its service shows it cannot take it, then gives up for the
 * rest of the run, saying so once: paging windows by creation time (a keyset: after each page, the
 * next request starts from that page's last creation time) rather than by the service's page
 * tokens, and paging a burst from both ends by ticket ID.
 *
 * @module
 */

/** On until the service shows it cannot take this way of paging; then off for the run, said once. */
export class Fallback {
  #on = true;
  readonly #logger: { warn(message: string): void };
  readonly #instead: string;

  /** `instead`: what the run does once it is off, as the warning says it. */
  constructor(logger: { warn(message: string): void }, instead: string) {
    this.#logger = logger;
    this.#instead = instead;
  }

  get on(): boolean {
    return this.#on;
  }

  /** The service `why` (what it did): off from now on. */
  off(why: string): void {
    if (!this.#on) return;
    this.#on = false;
    this.#logger.warn(`task sync: the service ${why}: ${this.#instead}`);
  }
}
