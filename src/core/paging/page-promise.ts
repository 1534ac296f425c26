import { wholeNumberProblem } from '../../internal/numbers.ts';
import { signalProblem } from '../../internal/signal.ts';
import { describeValue } from '../../internal/values.ts';
import type { WithResponse } from '../api-promise.ts';
import { Awaitable } from '../awaitable.ts';
import { RequestValidationError } from '../errors/errors.ts';
import { DEFAULT_MAX_EMPTY_PAGES, maxEmptyPagesProblem, waitBeforePage } from './empty-pages.ts';
import { ItemIterator } from './item-iterator.ts';
import type { Page } from './page.ts';
import { PageChain } from './page-chain.ts';

/**
 * Fetches the page after `pageToken` (the first page for `undefined`), with the answer it came in.
 *
 * @group Task search
 */
export type FetchPage<P> = (
  pageToken: string | undefined,
  signal: AbortSignal | undefined,
) => Promise<WithResponse<P>>;

/**
 * What a {@link PagePromise} pages: where it starts and how it fetches a page. Built when the
 * listing is first used, so that a bad request rejects the PagePromise instead of throwing.
 *
 * @group Task search
 */
export interface PageSource<P> {
  /** The token to start at (a saved `nextPageToken`), or undefined for the first page. */
  readonly startToken: string | undefined;
  /** Fetches one page. */
  readonly fetchPage: FetchPage<P>;
}

/**
 * Paging options of a list or search call.
 *
 * @group Task search
 */
export interface PagingOptions {
  /**
   * Request the next page while your loop works on the current one. At most one request runs
   * ahead; leaving the loop early aborts it. Default `false`.
   */
  readonly prefetch?: boolean | undefined;
  /**
   * How many empty pages in a row (no items, yet a next token) end the listing with a
   * {@link PaginationError}: a service that answers so is broken or hostile, and would otherwise be
   * paged forever. A whole number from 1. Default: the client's `maxEmptyPages`, else 100.
   */
  readonly maxEmptyPages?: number | undefined;
}

/** The first bad paging option (or signal) as the error a listing rejects with; undefined when all are good. */
function optionsProblem(signal: unknown, options: PagingOptions): RequestValidationError | undefined {
  const badSignal = signalProblem(signal);
  if (badSignal) return new RequestValidationError(badSignal, 'signal');
  if (options.prefetch !== undefined && typeof options.prefetch !== 'boolean') {
    return new RequestValidationError(
      `prefetch must be true or false (got ${describeValue(options.prefetch)}).`,
      'prefetch',
    );
  }
  const problem = maxEmptyPagesProblem(options.maxEmptyPages);
  return problem ? new RequestValidationError(problem, 'maxEmptyPages') : undefined;
}

/**
 * The result of a list or search call: `await` it for the first page, `for await` it for every
 * item across all pages, or call {@link PagePromise.pages} for page after page.
 *
 * Nothing is sent until you do one of these; an invalid request rejects, it does not throw. Paging
 * goes on through empty pages, stops when `nextPageToken` is empty, and throws
 * {@link PaginationError} if the service repeats a token or sends `maxEmptyPages` empty pages in a
 * row (after the first 10 of a row, each next page waits 100 ms doubling to 1 s).
 *
 * @example
 * for await (const view of client.tasks.search({ taskStates: [TaskState.OPEN] })) {
 *   console.log(view.task?.displayName);
 * }
 *
 * @group Task search
 */
export class PagePromise<P extends Page<Item>, Item> extends Awaitable<P> implements AsyncIterable<Item> {
  readonly #define: () => PageSource<P>;
  readonly #signal: AbortSignal | undefined;
  readonly #prefetch: boolean;
  readonly #maxEmptyPages: number;
  readonly #invalid: Error | undefined;
  #source: PageSource<P> | undefined;
  #first: Promise<WithResponse<P>> | undefined;

  /**
   * @internal Made by the client; users get one from a list or search call. `define` runs when
   * the listing is first used; what it throws rejects the PagePromise.
   */
  constructor(define: () => PageSource<P>, signal: AbortSignal | undefined, options: PagingOptions) {
    super();
    this.#define = define;
    this.#signal = signal;
    this.#prefetch = options.prefetch ?? false;
    this.#invalid = optionsProblem(signal, options);
    this.#maxEmptyPages = options.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES;
  }

  /** Makes a PagePromise usable wherever a `Promise` of its first page is expected. */
  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  #firstAnswer(): Promise<WithResponse<P>> {
    if (!this.#first) {
      try {
        if (this.#invalid) throw this.#invalid;
        this.#source = this.#define();
        this.#first = this.#source.fetchPage(this.#source.startToken || undefined, this.#signal);
      } catch (error) {
        this.#first = Promise.reject(error);
      }
    }
    return this.#first;
  }

  /** @internal The first page, fetched once and shared with a later iteration. */
  protected settled(): Promise<P> {
    return this.#firstAnswer().then(({ data }) => data);
  }

  /** The first page with its answer's status, headers and request ID (fetched once, like `await`). */
  withResponse(): Promise<WithResponse<P>> {
    return this.#firstAnswer();
  }

  /**
   * Every item of every page in one array, or the first `limit` items: paging stops (and a
   * prefetched request is aborted) as soon as `limit` items are in.
   *
   * @param options.limit - How many items at most: a whole number from 1. Default: all.
   */
  async toArray(options: { readonly limit?: number | undefined } = {}): Promise<Item[]> {
    const { limit } = options ?? {};
    if (wholeNumberProblem(limit, 1)) {
      throw new RequestValidationError(
        `limit must be a whole number from 1 (got ${String(limit)}); leave it out for every item.`,
        'limit',
      );
    }
    const items: Item[] = [];
    for await (const item of this) {
      items.push(item);
      if (items.length === limit) break;
    }
    return items;
  }

  /** Yields every page in order. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    // `for await` by hand, so that the last page is let go before the next is awaited (see
    // pagesWithResponse); it closes the answers as `for await` does.
    const answers = this.pagesWithResponse();
    let result: IteratorResult<WithResponse<P>, void> | undefined;
    let failed = false;
    try {
      for (;;) {
        result = undefined;
        result = await answers.next();
        if (result.done) return;
        yield result.value.data;
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // After a throw (the caller's `throw()`, a failed page), that error counts, not a failure to close.
      if (failed) await answers.return().catch(() => {});
      else await answers.return();
    }
  }

  /**
   * Yields every page in order with the answer it came in (status, headers, request ID), as
   * {@link PagePromise.withResponse} gives it for the first.
   */
  async *pagesWithResponse(): AsyncGenerator<WithResponse<P>, void, undefined> {
    // Aborts a prefetched request (or its wait) when the loop ends before it is used. Without
    // prefetch nothing is in flight when the loop ends (a generator runs one step at a time), so each
    // request gets the caller's signal alone: a combined one would cost every request an
    // `AbortSignal.any` in ky and one more signal for fetch to follow (CONTRIBUTING, Benchmarks).
    const stop = new AbortController();
    let signal = this.#signal;
    if (this.#prefetch) signal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let chain: PageChain | undefined;
    let next: Promise<WithResponse<P>> | undefined = this.#firstAnswer();
    try {
      // Outside the loop, and cleared before each wait: until V8 optimizes this code (in the first
      // thousand or so pages of a process), a suspended generator keeps what its variables held, so
      // a page the caller was done with would live on while the next is fetched, and the
      // young-generation collector, which runs in that wait, would copy it (CONTRIBUTING, Benchmarks).
      let answer: WithResponse<P> | undefined;
      let page: P | undefined;
      while (next) {
        answer = undefined;
        page = undefined;
        answer = await next;
        page = answer.data;
        next = undefined;
        // The source is known once the first page arrived.
        chain ??= new PageChain(this.#maxEmptyPages, this.#source?.startToken);
        // The page itself is good; its pointer to the next one may not be: deliver it, then stop loudly.
        const { token, error } = chain.follow(page);
        if (token !== undefined && this.#prefetch) {
          next = this.#after(token, chain.delayMs, signal);
          next.catch(() => {}); // its failure is raised where it is awaited, not as unhandled
        }
        yield answer;
        if (error) throw error;
        if (token !== undefined) next ??= this.#after(token, chain.delayMs, signal);
      }
    } finally {
      stop.abort();
    }
  }

  /** The page after `token`, once `delay` (owed to empty pages in a row) is over. */
  #after(token: string, delay: number, signal: AbortSignal | undefined): Promise<WithResponse<P>> {
    const source = this.#source as PageSource<P>; // set once the first page arrived
    const fetch = () => source.fetchPage(token, signal);
    return delay ? waitBeforePage(delay, signal).then(fetch) : fetch();
  }

  /** Yields every item of every page. */
  [Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    return new ItemIterator<P, Item>(this.pages());
  }
}
