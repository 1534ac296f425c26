import { PaginationError } from './errors.ts';

/**
 * A page of a list or search: results in `list`, and a `nextPageToken` that is empty on the last page.
 *
 * @group Task search
 */
export interface Page<Item> {
  /**
   * Up to page-size results; `null` or missing reads as none. A `null` element is kept here as
   * sent, and skipped by item iteration (`for await`), which yields results only.
   */
  readonly list?: readonly (Item | null)[] | null | undefined;
  /** Token of the next page; empty or missing on the last. */
  readonly nextPageToken?: string | null | undefined;
}

/**
 * Why a 2xx body is not a page, if it is not: it has neither `list` nor `nextPageToken` but looks
 * like an error (`error`, `code` or `message`). Such a body must not pass for an empty last page.
 * A bare `{}` is a valid empty last page (services may omit empty fields).
 *
 * @group Task search
 */
export function notAPage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const fields = body as Record<string, unknown>;
  if ('list' in fields || 'nextPageToken' in fields) return undefined;
  const errorish = ['error', 'code', 'message'].filter((key) => key in fields);
  return errorish.length
    ? `has no list and no nextPageToken but ${errorish.join(', ')}: an error body with status 200`
    : undefined;
}

/**
 * Fetches the page after `pageToken` (the first page for `undefined`).
 *
 * @group Task search
 */
export type FetchPage<P> = (pageToken: string | undefined, signal: AbortSignal | undefined) => Promise<P>;

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
}

/**
 * The result of a list or search call: `await` it for the first page, `for await` it for every
 * item across all pages, or call {@link PagePromise.pages} for page after page.
 *
 * Nothing is sent until you do one of these. Paging goes on through empty pages, stops only when
 * `nextPageToken` is empty, and throws {@link PaginationError} if the service repeats a token.
 *
 * @example
 * for await (const view of client.tasks.search({ taskStates: [TaskState.OPEN] })) {
 *   console.log(view.task?.displayName);
 * }
 *
 * @group Task search
 */
export class PagePromise<P extends Page<Item>, Item> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetchPage: FetchPage<P>;
  readonly #startToken: string | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #prefetch: boolean;
  #first: Promise<P> | undefined;

  /** @internal Made by resources; users get one from a list or search call. */
  constructor(
    fetchPage: FetchPage<P>,
    startToken: string | undefined,
    signal: AbortSignal | undefined,
    options: PagingOptions,
  ) {
    this.#fetchPage = fetchPage;
    this.#startToken = startToken || undefined;
    this.#signal = signal;
    this.#prefetch = options.prefetch ?? false;
  }

  /** Makes a PagePromise usable wherever a `Promise` of its first page is expected. */
  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  #firstPage(): Promise<P> {
    this.#first ??= this.#fetchPage(this.#startToken, this.#signal);
    return this.#first;
  }

  /** Resolves with the first page (fetched once, shared with a later iteration). */
  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is awaitable by design.
  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  /** Handles a failure of the first page, like `Promise.prototype.catch`. */
  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#firstPage().catch(onRejected);
  }

  /** Runs `onFinally` once the first page settles, like `Promise.prototype.finally`. */
  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#firstPage().finally(onFinally);
  }

  /** Yields every page in order. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    // Aborts a prefetched request when the loop ends before it is used.
    const stop = new AbortController();
    const signal = this.#signal ? AbortSignal.any([this.#signal, stop.signal]) : stop.signal;
    const seen = new Set<string>(this.#startToken ? [this.#startToken] : []);
    let next: Promise<P> | undefined = this.#firstPage();
    try {
      while (next) {
        const page: P = await next;
        next = undefined;
        const token = page.nextPageToken || undefined;
        // The page itself is good; its pointer to the next one is not: deliver it, then stop loudly.
        const repeated = token !== undefined && seen.has(token);
        if (token && !repeated) {
          seen.add(token);
          if (this.#prefetch) {
            next = this.#fetchPage(token, signal);
            next.catch(() => {}); // its failure is raised where it is awaited, not as unhandled
          }
        }
        yield page;
        if (repeated) {
          throw new PaginationError(
            `The service repeated page token "${token.slice(0, 40)}" after ${seen.size} pages; stopped rather than return items twice.`,
          );
        }
        if (token) next ??= this.#fetchPage(token, signal);
      }
    } finally {
      stop.abort();
    }
  }

  /** Yields every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) {
      for (const item of page.list ?? []) if (item !== null) yield item;
    }
  }
}
