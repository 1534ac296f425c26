import type * as z from 'zod/mini';
import type { Authenticator } from './auth.ts';
import { AuthenticationError, ResponseValidationError } from './errors.ts';
import type { HttpTransport } from './http.ts';
import type { Logger } from './logger.ts';
import { notAPage, type Page, PagePromise, type PagingOptions } from './paging.ts';
import { parseResponse } from './validation.ts';

/**
 * Options every call takes.
 *
 * @group Client
 */
export interface RequestOptions {
  /** Cancels the call at once, also while it waits to retry. */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms, overriding the client's. */
  readonly timeout?: number | undefined;
  /** Retries, overriding the client's. */
  readonly maxRetries?: number | undefined;
  /** Extra headers (cannot replace `Authorization`). */
  readonly headers?: Record<string, string> | undefined;
}

// The service treats 1..9 as 10 and anything above 100 as 100; we send what it will use.
const MIN_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

/**
 * The page size to send: 0 or missing leaves the service default; the rest is clamped to 10..100.
 *
 * @group Client
 */
export function clampPageSize(pageSize: number | undefined): number | undefined {
  if (!pageSize) return undefined;
  return Math.min(MAX_PAGE_SIZE, Math.max(MIN_PAGE_SIZE, pageSize));
}

/** `options` without its undefined fields, so they do not hide the client's defaults. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

interface Call<S extends z.core.$ZodType> {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly schema: S;
  readonly what: string;
  readonly query?: Record<string, string | undefined> | undefined;
  readonly body?: unknown;
  readonly options?: RequestOptions | undefined;
  /** A further check of the parsed body; a returned message fails the call with the raw body kept. */
  readonly check?: ((body: z.output<S>) => string | undefined) | undefined;
}

/**
 * The resource-agnostic core of the client: authenticates every attempt, re-sends once after a
 * 401 with a new token, validates answers with the given schema, and builds paginators.
 *
 * @group Client
 */
export class APIClient {
  readonly #baseUrl: string;
  readonly #auth: Authenticator;
  readonly #http: HttpTransport;
  readonly #logger: Logger;
  readonly #paging: PagingOptions;

  constructor(
    baseUrl: string,
    auth: Authenticator,
    http: HttpTransport,
    logger: Logger,
    paging: PagingOptions = {},
  ) {
    this.#baseUrl = baseUrl;
    this.#auth = auth;
    this.#http = http;
    this.#logger = logger;
    this.#paging = paging;
  }

  /** Sends one call and returns its validated body. */
  async request<S extends z.core.$ZodType>(call: Call<S>): Promise<z.output<S>> {
    const url = new URL(this.#baseUrl + call.path);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    // Serialised once: every retry and the post-401 re-send carry the identical bytes.
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const options = call.options ?? {};
    let sent = '';
    const send = () =>
      this.#http.send({
        method: call.method,
        url: url.href,
        body,
        headers: {
          ...options.headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        signal: options.signal,
        timeout: options.timeout,
        maxRetries: options.maxRetries,
        beforeAttempt: async (headers) => {
          sent = ''; // stays empty if getting the token fails: that 401 is the token endpoint's, not ours to retry
          sent = await this.#auth.token(options.signal);
          headers.set('authorization', `Bearer ${sent}`);
        },
      });
    let response: Awaited<ReturnType<typeof send>>;
    try {
      response = await send();
    } catch (error) {
      // Once only: a second 401 with a fresh token means the credentials themselves are refused.
      const refusedByApi = error instanceof AuthenticationError && error.status === 401 && sent !== '';
      if (!refusedByApi || !this.#auth.refused(sent)) throw error;
      this.#logger.info(`401 on ${call.method} ${call.path}: retrying once with a new token`);
      response = await send();
    }
    const parsed = parseResponse(call.schema, response.text, call.what);
    const problem = call.check?.(parsed);
    if (problem)
      throw new ResponseValidationError(
        `The ${call.what} response ${problem}; see error.rawBody.`,
        '',
        [],
        response.text,
      );
    return parsed;
  }

  /** One page of a listing: validated as a page, with a warning when it is larger than the API allows. */
  async #page<S extends z.core.$ZodType<Page<unknown>>>(call: Call<S>): Promise<z.output<S>> {
    const page = await this.request({ ...call, check: notAPage });
    const size = (page as Page<unknown>).list?.length ?? 0;
    if (size > MAX_PAGE_SIZE)
      this.#logger.warn(
        `${call.what}: a page of ${size} items, more than the ${MAX_PAGE_SIZE} the API allows`,
      );
    return page;
  }

  #pageSize(requested: number | undefined): number | undefined {
    const size = clampPageSize(requested);
    if (requested && size !== requested) {
      this.#logger.warn(
        `pageSize ${requested} is outside 10..100: sending ${size}, which the service would use`,
      );
    }
    return size;
  }

  /**
   * Pages a GET list: `page_size` and `page_token` in the query.
   */
  pagedGet<S extends z.core.$ZodType<Page<Item>>, Item>(
    path: string,
    query: Record<string, string | undefined>,
    pageSize: number | undefined,
    schema: S,
    what: string,
    options: RequestOptions & PagingOptions = {},
    startToken?: string,
  ): PagePromise<z.output<S>, Item> {
    const size = this.#pageSize(pageSize);
    return new PagePromise<z.output<S>, Item>(
      (pageToken, signal) =>
        this.#page({
          method: 'GET',
          path,
          schema,
          what,
          query: { ...query, page_size: size?.toString(), page_token: pageToken },
          options: { ...options, signal },
        }),
      startToken,
      options.signal,
      { ...this.#paging, ...definedOnly(options) },
    );
  }

  /**
   * Pages a POST search: `pageSize` and `pageToken` in the body; every page
   * sends the same body with only the token changed. `onPage` sees each page as it arrives.
   */
  pagedPost<S extends z.core.$ZodType<Page<Item>>, Item>(
    path: string,
    body: { pageSize?: number | undefined; pageToken?: string | undefined },
    schema: S,
    what: string,
    options: RequestOptions & PagingOptions = {},
    onPage?: (page: z.output<S>) => void,
  ): PagePromise<z.output<S>, Item> {
    const { pageToken: startToken, ...rest } = body;
    const template = { ...rest, pageSize: this.#pageSize(rest.pageSize) };
    return new PagePromise<z.output<S>, Item>(
      async (pageToken, signal) => {
        const page = await this.#page({
          method: 'POST',
          path,
          schema,
          what,
          body: pageToken ? { ...template, pageToken } : template,
          options: { ...options, signal },
        });
        onPage?.(page);
        return page;
      },
      startToken,
      options.signal,
      { ...this.#paging, ...definedOnly(options) },
    );
  }
}
