/**
 * How paging treats empty pages (no items, yet a next token): a few in a row are normal, many are a
 * broken or hostile service, which gets ever slower answers and then a `PaginationError`.
 *
 * @module
 */
import { wholeNumberProblem } from '../../internal/numbers.ts';
import { wait } from '../../internal/wait.ts';
import { AbortError } from '../errors/errors.ts';

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

/** Why `value` is not a valid `maxEmptyPages`, in words, or undefined. */
export function maxEmptyPagesProblem(value: unknown): string | undefined {
  if (wholeNumberProblem(value, 1) === undefined) return undefined;
  return `maxEmptyPages must be a whole number from 1 (got ${String(value)}); the default is ${DEFAULT_MAX_EMPTY_PAGES}.`;
}

/** Waits `ms` before the next page, or rejects with an {@link AbortError} as soon as `signal` aborts. */
export async function waitBeforePage(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!(await wait(ms, { signal }))) {
    throw new AbortError('Paging was aborted while it waited after empty pages.', { cause: signal?.reason });
  }
}
