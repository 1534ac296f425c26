import type * as z from 'zod/mini';
import { withoutEchoes } from '../internal/echoes.ts';
import { wait } from '../internal/wait.ts';
import { APIPromise, responseInfo, type WithResponse } from './api-promise.ts';
import { type Authenticator, tokenWithin } from './auth/credentials.ts';
import { AbortError, ResponseValidationError } from './errors/errors.ts';
import { AuthenticationError } from './errors/status-errors.ts';
import type { ClientEvents } from './events.ts';
import type { HookHandlers, Hooks } from './hooks.ts';
import type { Logger } from './logger.ts';
import { type CursorScheme, clampPageSize, MAX_PAGE_SIZE } from './paging/cursor.ts';
import { notAPage, type Page } from './paging/page.ts';
import { PagePromise, type PagingOptions } from './paging/page-promise.ts';
import { describeFilters } from './request-shape.ts';
import { backoffDelay, withJitter } from './transport/retry.ts';
import type { HttpTransport } from './transport/transport.ts';
import { type CallOptions, checkCallOptions } from './transport/transport-options.ts';
import { isNotJson, parseResponse } from './validation/validation.ts';

/**
 * Options every API call takes: the per-call options, plus extra headers.
 *
 * @group Client
 */
export interface RequestOptions extends CallOptions {
  /**
   * Extra headers, merged by name whatever their casing. The SDK's own win: `Authorization`,
   * `Accept: application/json`, and `Content-Type: application/json` on a call with a body. A
   * `User-Agent` given here is sent before the SDK's (`my-app/1.2 idgov-sdk-js/...`), not instead of it.
   */
  readonly headers?: Record<string, string> | undefined;
  /** Handlers told of this call's requests, answers, retries and pages, after the client's own. */
  readonly hooks?: HookHandlers<ClientEvents> | undefined;
}

/** One request to the API. */
interface Call<S extends z.core.$ZodType> {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly schema: S;
  /** How messages name the endpoint, e.g. `task search`. */
  readonly what: string;
  readonly query?: Record<string, string | undefined> | undefined;
  readonly body?: unknown;
  readonly options?: RequestOptions | undefined;
  /** A further check of the parsed body; a returned message fails the call with the raw body kept. */
  readonly check?: ((body: z.output<S>) => string | undefined) | undefined;
}

/**
 * One listing: a call whose page size and token a {@link CursorScheme} places; the rest of the
 * request is the same on every page.
 */
export interface ListCall<S extends z.core.$ZodType> {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly schema: S;
  /** How messages name the listing, e.g. `task search`. */
  readonly what: string;
  /** Where page size and token go: `bodyCursor` or `queryCursor`. */
  readonly cursor: CursorScheme;
  readonly query?: Record<string, string | undefined> | undefined;
  /** The JSON body without page size and token. */
  readonly body?: object | undefined;
  /** Requested page size, clamped as the service would. */
  readonly pageSize?: number | undefined;
  /** A saved `nextPageToken` to resume at. */
  readonly pageToken?: string | undefined;
  /** Sees each page as it arrives (e.g. to link expanded objects). */
  readonly onPage?: ((page: z.output<S>) => void) | undefined;
}

/**
 * What a resource uses of the client core: its logger, sending calls and building listings.
 * Resources take this rather than {@link APIClient}, whose constructor names the transport and the
 * authenticator, so that the published declarations need not name them.
 *
 * @internal
 */
export interface ClientCore {
  /** The client's leveled logger, for resources' own warnings. */
  readonly logger: Logger;
  /** Sends one call; the {@link APIPromise} gives its validated body, or with `withResponse()` the answer too. */
  request<S extends z.core.$ZodType>(call: Call<S>): APIPromise<z.output<S>>;
  /**
   * The one paging primitive: a {@link PagePromise} over `define()`'s listing. `define` runs when
   * the listing is first used (validating the request there), so a bad request rejects the
   * PagePromise instead of throwing. Each page is validated as a page, with a warning when it is
   * larger than the API allows.
   */
  list<S extends z.core.$ZodType<Page<Item>>, Item>(
    define: () => ListCall<S>,
    options?: RequestOptions & PagingOptions,
  ): PagePromise<z.output<S>, Item>;
}

/** `options` without its undefined fields, so they do not hide the client's defaults. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The resource-agnostic core of the client: authenticates every attempt, re-sends once after a
 * 401 with a new token, validates answers with the given schema, and builds listings.
 *
 * @group Client
 */
export class APIClient implements ClientCore {
  readonly #baseUrl: string;
  readonly #auth: Authenticator;
  readonly #http: HttpTransport;
  readonly #logger: Logger;
  readonly #hooks: Hooks<ClientEvents>;
  readonly #paging: PagingOptions;

  constructor(
    baseUrl: string,
    auth: Authenticator,
    http: HttpTransport,
    logger: Logger,
    hooks: Hooks<ClientEvents>,
    paging: PagingOptions = {},
  ) {
    this.#baseUrl = baseUrl;
    this.#auth = auth;
    this.#http = http;
    this.#logger = logger;
    this.#hooks = hooks;
    this.#paging = paging;
  }

  get logger(): Logger {
    return this.#logger;
  }

  request<S extends z.core.$ZodType>(call: Call<S>): APIPromise<z.output<S>> {
    return new APIPromise(this.#send(call));
  }

  async #send<S extends z.core.$ZodType>(call: Call<S>): Promise<WithResponse<z.output<S>>> {
    const options = call.options ?? {};
    checkCallOptions(options);
    const url = new URL(this.#baseUrl + call.path);
    for (const [key, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    // Serialised once: every retry and the post-401 re-send carry the identical bytes.
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    let sent = '';
    // Every token this call sent: the service may echo one in an error, even the one a 401 refused.
    const tokens: string[] = [];
    const send = () =>
      this.#http.send({
        method: call.method,
        url: url.href,
        body,
        callerHeaders: options.headers,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        signal: options.signal,
        timeout: options.timeout,
        maxRetries: options.maxRetries,
        hooks: options.hooks,
        // A read: the API's only POST is a search, which changes nothing.
        idempotent: true,
        errorContext: { secrets: () => tokens },
        beforeAttempt: async (headers) => {
          sent = ''; // stays empty if getting the token fails: that 401 is the token endpoint's, not ours to retry
          sent = await tokenWithin(this.#auth, options.signal, options.timeout ?? this.#http.timeout, call);
          tokens.push(sent);
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
    // A body the service got wrong may echo the token it was sent: the raw body an error keeps must not.
    const unsent = (text: string) => withoutEchoes(text, tokens, '[redacted]');
    const parse = (answer: typeof response) =>
      parseResponse(call.schema, answer.text, call.what, answer.protoFree, {
        rawBody: unsent,
        note: 'see error.rawBody',
        requestId: answer.requestId,
      });
    let parsed: z.output<S>;
    // Every call is a read: an answer whose body is not JSON (cut short by a proxy or a dying node)
    // is asked for again like a connection that broke, within the call's retries.
    const retries = options.maxRetries ?? this.#http.maxRetries;
    for (let retry = 1; ; retry++) {
      try {
        parsed = parse(response);
        break;
      } catch (error) {
        if (!isNotJson(error) || retry > retries) throw error;
        this.#logger.warn(
          `${error.message.replace(/; see error\.rawBody\.?$/, '')}: asking again (retry ${retry} of ${retries})`,
        );
        if (!(await wait(withJitter(backoffDelay(retry)), { signal: options.signal }))) {
          throw new AbortError(`${call.method} ${call.path} was aborted.`, { cause: options.signal?.reason });
        }
        response = await send();
      }
    }
    const problem = call.check?.(parsed);
    if (problem)
      throw new ResponseValidationError(
        `The ${call.what} response ${problem}; see error.rawBody.`,
        '',
        [],
        unsent(response.text),
        response.requestId,
      );
    return { data: parsed, response: responseInfo(response) };
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

  list<S extends z.core.$ZodType<Page<Item>>, Item>(
    define: () => ListCall<S>,
    given?: RequestOptions & PagingOptions,
  ): PagePromise<z.output<S>, Item> {
    // `null` is taken for no options, as `undefined` is.
    const options = given ?? {};
    return new PagePromise<z.output<S>, Item>(
      () => {
        const call = define();
        const size = this.#pageSize(call.pageSize);
        const request = { query: call.query ?? {}, body: call.body };
        // Progress of this listing, for the `page` hook.
        let pages = 0;
        let itemsSoFar = 0;
        return {
          startToken: call.pageToken,
          fetchPage: async (token, signal) => {
            const { query, body } = call.cursor.place(request, size, token);
            this.#logger.debug(`${call.what}: ${call.method} ${call.path}`, {
              filters: describeFilters(call.body),
              pageSize: size ?? 'service default',
              page: token ? 'next' : 'first',
            });
            const answer = await this.request({
              ...call,
              query,
              body,
              options: { ...options, signal },
              check: notAPage,
            }).withResponse();
            const count = (answer.data as Page<unknown>).list?.length ?? 0;
            if (count > MAX_PAGE_SIZE) {
              this.#logger.warn(
                `${call.what}: a page of ${count} items, more than the ${MAX_PAGE_SIZE} the API allows`,
              );
            }
            call.onPage?.(answer.data);
            pages += 1;
            itemsSoFar += count;
            const page = pages;
            const { response } = answer;
            this.#hooks.emit(
              'page',
              () => ({
                what: call.what,
                page,
                items: count,
                itemsSoFar,
                bytes: response.bytes,
                more: Boolean((answer.data as Page<unknown>).nextPageToken),
                requestId: response.requestId,
                durationMs: response.durationMs,
              }),
              options.hooks,
            );
            return answer;
          },
        };
      },
      options.signal ?? undefined,
      { ...this.#paging, ...definedOnly(options) },
    );
  }
}
