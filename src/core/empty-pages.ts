/**
 * How paging treats empty pages (no items, yet a next token): a few in a row are normal, many are a
 * broken or hostile service, which gets ever slower answers and then a `PaginationError`.
 *
 * @module
 */
import { AbortError, RequestValidationError } from './errors.ts';

/** Default of `maxEmptyPages` (paging options and client options). */
export const DEFAULT_MAX_EMPTY_PAGES = 100;

/**
 * Empty pages in a row fetched at full speed. A real service sends a few in a row at most (a filter
 * that matches little of a large tenant); past this many, each next page waits longer.
 */
export const FREE_EMPTY_PAGES = 10;
const FIRST_EMPTY_PAGE_DELAY_MS = 100;
const MAX_EMPTY_PAGE_DELAY_MS = 1_000;

/**
 * The wait before the page after `consecutive` empty pages: none for the first
 * {@link FREE_EMPTY_PAGES}, then 100 ms doubling up to 1 s. A service that answers empty pages
 * forever thus gets at most about one request a second, not thousands, until `maxEmptyPages` stops it.
 */
export function emptyPageDelay(consecutive: number): number {
  if (consecutive <= FREE_EMPTY_PAGES) return 0;
  return Math.min(
    MAX_EMPTY_PAGE_DELAY_MS,
    FIRST_EMPTY_PAGE_DELAY_MS * 2 ** (consecutive - FREE_EMPTY_PAGES - 1),
  );
}

/** Why `value` is not a valid `maxEmptyPages`, as an error, or undefined. */
export function checkMaxEmptyPages(value: unknown): RequestValidationError | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isInteger(value) && value >= 1))
    return undefined;
  return new RequestValidationError(
    `maxEmptyPages must be a whole number from 1 (got ${String(value)}); the default is ${DEFAULT_MAX_EMPTY_PAGES}.`,
    'maxEmptyPages',
  );
}

/** Waits `ms`, or rejects with an {@link AbortError} as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new AbortError('Paging was aborted while it waited after empty pages.', { cause: signal.reason }),
      );
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
