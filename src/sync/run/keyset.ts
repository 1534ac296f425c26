/**
 * Whether a run pages its windows by creation time (a keyset: after each page, the next request
 * starts from that page's last creation time) or by the service's page tokens, for a service that
 * shows it cannot be paged so (pages out of creation order, tasks before the bound asked for).
 *
 * @module
 */

/** Whether a run pages by keyset: on until the service shows it cannot be paged so, which is said once. */
export class KeysetPaging {
  #on = true;
  readonly #logger: { warn(message: string): void };

  constructor(logger: { warn(message: string): void }) {
    this.#logger = logger;
  }

  get on(): boolean {
    return this.#on;
  }

  /** The service `why`: page by tokens from now on. */
  off(why: string): void {
    if (!this.#on) return;
    this.#on = false;
    this.#logger.warn(
      `task sync: the service ${why}: this run pages by its page tokens from here on, not by creation time (a task purged between two pages may then be missed until a full run)`,
    );
  }
}
