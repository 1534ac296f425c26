import type { KyInstance } from 'ky';
import {
  AbortError,
  ConfigurationError,
  ConnectionError,
  type ErrorContext,
  IdGovError,
  makeAPIError,
  type RequestSummary,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
} from './errors.ts';
import { type KyModule, loadKy } from './ky.ts';
import { createLogger, type Logger, type LogLevel } from './logger.ts';
import { BrokenAnswerError, exceededRetryAfterCap, retryOptions } from './retry.ts';

/**
 * Transport options that clients and webhook senders share.
 *
 * @group Client
 */
export interface TransportOptions {
  /**
   * Retries after a connection failure, timeout, 408, 429 or 5xx: a whole number from 0 to 100.
   * Default 2 (client), 3 (webhook sender).
   */
  readonly maxRetries?: number | undefined;
  /**
   * Timeout of each attempt in ms, from sending to the last byte of the body: a whole number from 1
   * to 2 147 483 647 (about 24.8 days, the longest timer runtimes allow). Default 30 000. There is
   * no "no timeout": `0` is refused rather than read as "time out at once" or "never".
   */
  readonly timeout?: number | undefined;
  /**
   * Largest answer body, in bytes, the SDK reads (token and API answers); a larger one fails with
   * {@link ResponseTooLargeError}, read no further. Default 33 554 432 (32 MiB), far above a page of
   * 100 task views with every expansion. Error bodies are bounded by ky at 10 MiB.
   */
  readonly maxResponseBytes?: number | undefined;
  /** `fetch` to use (a proxying or instrumented one). Default: the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Where log lines go. Default: every level to `console.error` (stderr). */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn` (to stderr). */
  readonly logLevel?: LogLevel | undefined;
}

/**
 * {@link TransportOptions} as the transport uses them: every default applied and checked, the
 * logger built, the `User-Agent` composed.
 */
export interface ResolvedTransportOptions {
  /** `fetch` to use; the global one when undefined. */
  readonly fetch: typeof globalThis.fetch | undefined;
  /** Per-attempt timeout in ms. */
  readonly timeout: number;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Largest answer body read, in bytes. */
  readonly maxResponseBytes: number;
  /** Sent as `User-Agent` where the runtime allows it. */
  readonly userAgent: string;
  /** The SDK's leveled logger. */
  readonly logger: Logger;
}

/**
 * Options every single call takes, whatever it calls (an API method, a webhook delivery): the one
 * per-call options type, which `RequestOptions` and `SendOptions` extend.
 *
 * @group Client
 */
export interface CallOptions {
  /** Cancels the call at once, also while it waits to retry. */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms, overriding the client's (or sender's); 1 to 2 147 483 647. */
  readonly timeout?: number | undefined;
  /** Retries, overriding the client's (or sender's); 0 to 100. */
  readonly maxRetries?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** 32 MiB: a page of 100 task views with every expansion is a few MiB; a hostile 50 MB answer is refused. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
// setTimeout (and so ky) cannot wait longer than 2^31 - 1 ms.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Why `value` is not a whole number in `min..max`, or undefined when it is (or is absent). */
function outOfRange(value: unknown, min: number, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return undefined;
  const kind = min === 0 ? 'a non-negative integer' : 'a positive integer';
  return `must be ${kind} no larger than ${max} (got ${typeof value === 'number' ? value : JSON.stringify(value)})`;
}

const LIMITS = {
  timeout: [1, MAX_TIMEOUT_MS, 'use a large timeout such as 600000 to wait long; there is no "no timeout"'],
  maxRetries: [0, 100, 'use 0 to disable retries'],
  maxResponseBytes: [1, Number.MAX_SAFE_INTEGER, 'the default is 33554432 (32 MiB)'],
} as const;

function checked(name: keyof typeof LIMITS, value: number | undefined, fallback: number): number {
  const [min, max, fix] = LIMITS[name];
  const problem = outOfRange(value, min, max);
  if (problem) throw new ConfigurationError(`${name} ${problem}: ${fix}.`);
  return value ?? fallback;
}

/** Refuses a bad per-call `timeout` or `maxRetries` before anything is sent. */
export function checkCallOptions(options: {
  readonly timeout?: unknown;
  readonly maxRetries?: unknown;
}): void {
  for (const name of ['timeout', 'maxRetries'] as const) {
    const [min, max, fix] = LIMITS[name];
    const problem = outOfRange(options[name], min, max);
    if (problem) throw new RequestValidationError(`${name} ${problem}: ${fix}.`, name);
  }
}

/** Builds the transport and the leveled logger from user options, refusing bad numbers. */
export function createTransport(
  options: TransportOptions,
  defaults: { readonly maxRetries: number; readonly userAgent: string },
): { http: HttpTransport; logger: Logger } {
  const logger = createLogger(options.logger, options.logLevel);
  const http = new HttpTransport({
    fetch: options.fetch,
    timeout: checked('timeout', options.timeout, DEFAULT_TIMEOUT_MS),
    maxRetries: checked('maxRetries', options.maxRetries, defaults.maxRetries),
    maxResponseBytes: checked('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES),
    userAgent: defaults.userAgent,
    logger,
  });
  return { http, logger };
}

/** One request through {@link HttpTransport.send}. The body is serialised once and re-sent as is on retries. */
export interface HttpRequest extends CallOptions {
  /** `GET` or `POST`. */
  readonly method: 'GET' | 'POST';
  /** Absolute URL. */
  readonly url: string;
  /** The SDK's headers for this request (a content type); they replace a caller's of the same name. */
  readonly headers?: Record<string, string> | undefined;
  /** The caller's extra headers (`RequestOptions.headers`). */
  readonly callerHeaders?: Record<string, string> | undefined;
  /** Serialised body: these exact bytes are sent on every attempt. */
  readonly body?: string | URLSearchParams | Uint8Array<ArrayBuffer> | undefined;
  /** Called before every attempt, to set fresh headers (a token, a signature). */
  readonly beforeAttempt?: ((headers: Headers, attempt: number) => void | Promise<void>) | undefined;
  /** Non-2xx statuses that are answers, not errors (a webhook's 409 "already delivered"). */
  readonly acceptStatuses?: readonly number[] | undefined;
  /**
   * The caller judges the answer by its status alone (a webhook delivery): the body of an accepted
   * answer is not read, so a large or broken one cannot turn an accepted delivery into a failure.
   */
  readonly statusOnly?: boolean | undefined;
  /** How to word errors of this endpoint. */
  readonly errorContext?: ErrorContext | undefined;
}

/** A 2xx (or accepted) answer, its body read as text (empty with `statusOnly`). */
export interface HttpResponse {
  /** HTTP status. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The body as text. */
  readonly text: string;
  /** Attempts made, 1 when the first one succeeded. */
  readonly attempts: number;
}

function summary(url: string, method: string): RequestSummary {
  const { origin, pathname } = new URL(url);
  return { method, path: pathname, url: origin + pathname };
}

/** ky's bound on an error body, kept: past it the body is dropped and the status error stands alone. */
const MAX_ERROR_BODY_BYTES = 10 * 1024 * 1024;
// Statuses whose Response may not have a body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

// The text of an answer the caller uses, decoded once where it was read (fetchWhole) and found by
// the Response that stands for it: no second copy into a Response body and no second decode.
// UTF-8 with a BOM dropped, as `Response.text()` decodes.
const decodedText = new WeakMap<Response, string>();
const utf8 = new TextDecoder();

/**
 * Reads the whole body, counting bytes as they arrive: past `limit` it stops reading and returns
 * undefined, so a hostile 50 MB answer costs at most `limit` bytes of memory. A declared
 * Content-Length over the limit stops it before reading at all.
 */
async function readBytes(response: Response, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (Number(response.headers.get('content-length')) > limit) {
    response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * A `fetch` for ky that resolves only once the answer's body is read. ky times and retries the
 * whole `fetch` call, so one deadline per attempt runs from sending to the last byte, and a body
 * that breaks off or stalls is retried like a connection that did. The answer handed back is
 * buffered: an answer the caller uses (2xx, accepted) up to `maxResponseBytes`, past which it
 * fails; an error's up to ky's 10 MiB, past which it is dropped.
 */
function fetchWhole(
  fetch: typeof globalThis.fetch | undefined,
  request: HttpRequest,
  limit: number,
  what: RequestSummary,
): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await (fetch ? fetch(input, init) : globalThis.fetch(input, init));
    // A browser's refused redirect: status 0 and no body, which a new Response cannot have.
    if (response.type === 'opaqueredirect') return response;
    const used = response.ok || (request.acceptStatuses?.includes(response.status) ?? false);
    const answer = { status: response.status, statusText: response.statusText, headers: response.headers };
    if (used && request.statusOnly) {
      response.body?.cancel().catch(() => {});
      return new Response(null, answer);
    }
    let bytes: Uint8Array<ArrayBuffer> | undefined;
    try {
      bytes = await readBytes(response, used ? limit : MAX_ERROR_BODY_BYTES);
    } catch (error) {
      // An abort (ky's timeout, the caller's signal) is not a break.
      if (input instanceof Request && input.signal.aborted) throw error;
      throw new BrokenAnswerError('the connection broke while reading the answer', { cause: error });
    }
    if (!bytes && used) {
      throw new ResponseTooLargeError(
        `The answer to ${what.method} ${what.path} is larger than maxResponseBytes (${limit} bytes); stopped reading. Raise maxResponseBytes only if the service really sends answers this large.`,
        limit,
        what,
        response.status,
      );
    }
    const empty = !bytes?.byteLength || NULL_BODY_STATUSES.has(response.status);
    if (used && bytes && !empty) {
      const decoded = new Response(null, answer);
      decodedText.set(decoded, utf8.decode(bytes));
      return decoded;
    }
    return new Response(empty ? null : bytes, answer);
  };
}

/** The socket or TLS error code under a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * The transport under every client and sender: ky for sending, retries (with backoff, jitter and
 * Retry-After) and per-attempt timeouts; the body is read inside each attempt (see fetchWhole), so
 * the timeout bounds it and a broken body is retried. This class maps ky's errors to the SDK's.
 */
export class HttpTransport {
  readonly #settings: ResolvedTransportOptions;
  #ky: KyInstance | undefined;

  constructor(settings: ResolvedTransportOptions) {
    this.#settings = settings;
  }

  /** Sends `request`, retrying as configured, and reads the body. Throws an {@link IdGovError}. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const { logger } = this.#settings;
    checkCallOptions(request);
    const timeout = request.timeout ?? this.#settings.timeout;
    const what = summary(request.url, request.method);
    let attempts = 0;
    const prepare = async (headers: Headers) => {
      attempts += 1;
      await request.beforeAttempt?.(headers, attempts);
    };
    const started = Date.now();
    let ky: KyModule | undefined;
    try {
      const headers = this.#headers(request);
      ky = await loadKy();
      const { isHTTPError } = ky;
      this.#ky ??= ky.default.create({ throwHttpErrors: true });
      const response = await this.#ky(request.url, {
        method: request.method,
        headers,
        body: request.body,
        signal: request.signal,
        timeout,
        fetch: fetchWhole(this.#settings.fetch, request, this.#settings.maxResponseBytes, what),
        // Never follow: a 307/308 would replay the client secret or the token to wherever it points,
        // and any redirect would make us accept answers from a host the user did not configure.
        redirect: 'manual',
        throwHttpErrors: (status) => !request.acceptStatuses?.includes(status),
        retry: retryOptions(request.maxRetries ?? this.#settings.maxRetries, ky),
        hooks: {
          beforeRequest: [({ request: r }) => prepare(r.headers)],
          beforeRetry: [
            ({ request: r, error, retryCount }) => {
              const reason = isHTTPError(error) ? `status ${error.response.status}` : error.name;
              logger.info(`retrying ${what.method} ${what.path} after ${reason}`, { retry: retryCount });
              return prepare(r.headers);
            },
          ],
        },
      });
      // Buffered by fetchWhole within the attempt's timeout; decoded as UTF-8, a BOM dropped.
      const text = decodedText.get(response) ?? (await response.text());
      logger.debug(`${what.method} ${what.path} ${response.status}`, { ms: Date.now() - started, attempts });
      return { status: response.status, headers: response.headers, text, attempts };
    } catch (error) {
      throw this.#translate(error, request, what, attempts, ky);
    }
  }

  /**
   * The headers sent: the caller's, then the SDK's replacing any of the same name whatever its
   * casing (`Headers` merges by name; an object spread would send both and the server would see
   * `text/plain, application/json`). `Accept` is always JSON, as the SDK parses the answer; a
   * caller's `User-Agent` goes before the SDK's, the more specific product first (RFC 9110 10.1.5);
   * `Authorization` is set before each attempt, over any other.
   */
  #headers(request: HttpRequest): Headers {
    let headers: Headers;
    try {
      headers = new Headers(request.callerHeaders);
    } catch (error) {
      const reason = String((error as Error)?.message)
        .replace(/[^\x20-\x7e]/g, ' ')
        .slice(0, 200);
      throw new RequestValidationError(
        `headers are not valid HTTP headers (${reason}): use ASCII names and values without line breaks.`,
        'headers',
      );
    }
    for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
    const theirs = headers.get('user-agent');
    headers.set('user-agent', theirs ? `${theirs} ${this.#settings.userAgent}` : this.#settings.userAgent);
    headers.set('accept', 'application/json');
    return headers;
  }

  #translate(
    error: unknown,
    request: HttpRequest,
    what: RequestSummary,
    attempts: number,
    ky: KyModule | undefined,
  ): IdGovError {
    if (error instanceof IdGovError) return error;
    if (request.signal?.aborted) {
      return new AbortError(`${what.method} ${what.path} was aborted by the caller.`, {
        cause: request.signal.reason,
      });
    }
    if (!ky) {
      return new ConnectionError(
        `Could not load ky, the SDK's HTTP layer, for ${what.method} ${what.path}: ${(error as Error)?.message ?? error}. In a browser, check that the bundle's chunks are served.`,
        { cause: error },
      );
    }
    const { isHTTPError, isNetworkError, isTimeoutError } = ky;
    const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const host = new URL(request.url).host;
    if (isHTTPError(error)) {
      const { response } = error;
      const wait = exceededRetryAfterCap(error);
      const note =
        wait === undefined
          ? undefined
          : `The service asked to wait ${Math.ceil(wait / 1000)} s, longer than the SDK's 60 s cap; try again later.`;
      // A browser hides a refused redirect behind an `opaqueredirect` answer of status 0: report it as the 302 it was.
      const status = response.type === 'opaqueredirect' ? 302 : response.status;
      const init = { status, headers: response.headers, body: error.data, request: what };
      return makeAPIError(init, request.errorContext, note);
    }
    if (isTimeoutError(error) || (error instanceof DOMException && error.name === 'TimeoutError')) {
      return new TimeoutError(
        `${what.method} ${what.path} timed out after ${tries} of ${request.timeout ?? this.#settings.timeout} ms each; raise timeout or check the network.`,
      );
    }
    if (error instanceof BrokenAnswerError) {
      const code = errorCode(error.cause);
      return new ConnectionError(
        `${host} answered ${what.method} ${what.path}, but the connection broke while reading the answer${code ? ` (${code})` : ''}, after ${tries}. Check the network or a proxy between you and the service.`,
        { cause: error.cause },
      );
    }
    // NetworkError carries the socket-level cause (ECONNREFUSED, reset); never the request, whose headers hold tokens.
    const cause = isNetworkError(error) ? error.cause : error;
    // The code says what failed (DNS, refused, TLS); a message is quoted only without one, cut short.
    const code = errorCode(cause);
    const reason =
      code ??
      String((cause as Error)?.message ?? cause)
        .replace(/[^\x20-\x7e]/g, ' ')
        .slice(0, 200);
    return new ConnectionError(
      `Could not reach ${host} for ${what.method} ${what.path} after ${tries}: ${reason}. Check the base URL and the network.`,
      { cause },
    );
  }
}
