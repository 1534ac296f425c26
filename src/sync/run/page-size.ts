/**
 * How many tasks a run asks for a page: the option's, halved for the rest of the run each time an
 * answer passes the client's `maxResponseBytes`, down to the service's smallest page (10: it takes
 * any smaller size as 10), so that huge tasks slow a run down rather than fail every one. Said
 * once a run.
 *
 * @module
 */
import type { ResponseTooLargeError } from '../../core/errors/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { MIN_PAGE_SIZE } from '../../core/paging/cursor.ts';

/** A run's page size, shared by its cursors. */
export class PageSize {
  #current: number;
  #told = false;
  readonly #logger: Logger;

  constructor(initial: number, logger: Logger) {
    this.#current = initial;
    this.#logger = logger;
  }

  /** Tasks the next request asks for. */
  get current(): number {
    return this.#current;
  }

  /**
   * An answer to a request of `asked` tasks was too large: halves the page size (unless another
   * cursor already made it smaller than `asked`). False when the smallest page is too large: then
   * only a larger `maxResponseBytes` helps, and the error stands.
   */
  halve(asked: number, error: ResponseTooLargeError): boolean {
    if (asked <= MIN_PAGE_SIZE) return false;
    const half = Math.max(MIN_PAGE_SIZE, Math.floor(asked / 2));
    if (half < this.#current) this.#current = half;
    if (!this.#told) {
      this.#told = true;
      this.#logger.warn(
        `task sync: an answer of ${asked} tasks passed maxResponseBytes (${error.limit} bytes): asking for ${this.#current} a page from now on in this run. Huge tasks? A larger maxResponseBytes keeps pages whole.`,
      );
    }
    return true;
  }
}
