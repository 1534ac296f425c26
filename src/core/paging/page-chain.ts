/**
 * The chain of page tokens of one listing, judged page by page: a token seen before (a cycle) or
 * too many empty pages in a row (no items, yet a next token) is a broken or hostile service, and
 * paging stops with a {@link PaginationError} rather than return items twice or page forever.
 * Shared by the client's listings and the task sync's windows.
 *
 * @module
 */

import { PaginationError } from '../errors/errors.ts';
import { emptyPageDelay } from './empty-pages.ts';
import { TokenHistory } from './page-token-history.ts';

/** A page as the chain sees it: its items and its pointer to the next. */
export interface ChainedPage {
  readonly list?: ReadonlyArray<unknown> | null | undefined;
  readonly nextPageToken?: string | null | undefined;
}

/** One listing's tokens and its empty pages in a row. */
export class PageChain {
  readonly #seen = new TokenHistory();
  readonly #maxEmptyPages: number;
  #empty = 0;

  /** `startToken`: the token the listing began at, if it did not begin at the first page. */
  constructor(maxEmptyPages: number, startToken?: string | undefined) {
    this.#maxEmptyPages = maxEmptyPages;
    if (startToken) this.#seen.add(startToken);
  }

  /**
   * Takes `page`: its next token, or undefined at the end. The page itself is good, its pointer may
   * not be: the error is returned for the caller to raise once the page is delivered.
   */
  follow(page: ChainedPage): { readonly token: string | undefined; readonly error?: PaginationError } {
    const token = page.nextPageToken || undefined;
    // A page of only `null`s yields nothing, so it counts as empty too.
    this.#empty = token && !page.list?.some((item) => item !== null) ? this.#empty + 1 : 0;
    if (token !== undefined && !this.#seen.add(token)) {
      return {
        token: undefined,
        error: new PaginationError(
          `The service repeated page token "${token.slice(0, 40)}" after ${this.#seen.size} pages; stopped rather than return items twice.`,
        ),
      };
    }
    if (this.#empty >= this.#maxEmptyPages) {
      return {
        token: undefined,
        error: new PaginationError(
          `The service sent ${this.#empty} empty pages in a row, each with a new token; stopped rather than page forever. If the service is right, raise maxEmptyPages (now ${this.#maxEmptyPages}).`,
        ),
      };
    }
    return { token };
  }

  /** The wait owed before the next page, in ms: none until many empty pages came in a row. */
  get delayMs(): number {
    return emptyPageDelay(this.#empty);
  }
}
