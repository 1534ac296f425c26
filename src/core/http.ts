import type { KyInstance } from 'ky';
import {
  AbortError,
  ConfigurationError,
  ConnectionError,
  type ErrorContext,
  IdGovError,
  makeAPIError,
  type RequestSummary,
  TimeoutError,
} from './errors.ts';
import { type KyModule, loadKy } from './ky.ts';
import { createLogger, type Logger, type LogLevel } from './logger.ts';
import { exceededRetryAfterCap, retryOptions } from './retry.ts';

/** Settings shared by every request of one client or sender. */
export interface HttpSettings {
  /** `fetch` to use; defaults to the global one. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Per-attempt timeout in ms. */
  readonly timeout: number;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Sent as `User-Agent` where the runtime allows it. */
  readonly userAgent: string;
  /** The SDK's leveled logger. */
  readonly logger: Logger;
}

/**
 * Transport options that clients and webhook senders share.
 *
 * @group Client
 */
export interface TransportOptions {
  /** Retries after a connection failure, timeout, 408, 429 or 5xx. Default 2 (client), 3 (webhook sender). */
  readonly maxRetries?: number | undefined;
  /** Timeout of each attempt in ms. Default 30 000. */
  readonly timeout?: number | undefined;
  /** `fetch` to use (a proxying or instrumented one). Default: the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Where log lines go. Default `console`. */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `off`. */
  readonly logLevel?: LogLevel | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function nonNegativeInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`${name} must be a non-negative integer (got ${value}).`);
  }
  return value;
}

/** Builds the transport and the leveled logger from user options, refusing bad numbers. */
export function createTransport(
  options: TransportOptions,
  defaults: { readonly maxRetries: number; readonly userAgent: string },
): { http: HttpTransport; logger: Logger } {
  const logger = createLogger(options.logger, options.logLevel);
  const http = new HttpTransport({
    fetch: options.fetch,
    timeout: nonNegativeInteger(options.timeout, 'timeout', DEFAULT_TIMEOUT_MS),
    maxRetries: nonNegativeInteger(options.maxRetries, 'maxRetries', defaults.maxRetries),
    userAgent: defaults.userAgent,
    logger,
  });
  return { http, logger };
}

/** One request through {@link HttpTransport.send}. The body is serialised once and re-sent as is on retries. */
export interface HttpRequest {
  /** `GET` or `POST`. */
  readonly method: 'GET' | 'POST';
  /** Absolute URL. */
  readonly url: string;
  /** Extra headers. */
  readonly headers?: Record<string, string> | undefined;
  /** Serialised body: these exact bytes are sent on every attempt. */
  readonly body?: string | URLSearchParams | Uint8Array<ArrayBuffer> | undefined;
  /** Cancels at once, also during a retry wait. */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms, overriding the client's. */
  readonly timeout?: number | undefined;
  /** Retries, overriding the client's. */
  readonly maxRetries?: number | undefined;
  /** Called before every attempt, to set fresh headers (a token, a signature). */
  readonly beforeAttempt?: ((headers: Headers, attempt: number) => void | Promise<void>) | undefined;
  /** `manual` to refuse redirects (a redirect then fails as an APIError). Default `follow`. */
  readonly redirect?: RequestRedirect | undefined;
  /** Non-2xx statuses that are answers, not errors (a webhook's 409 "already delivered"). */
  readonly acceptStatuses?: readonly number[] | undefined;
  /** How to word errors of this endpoint. */
  readonly errorContext?: ErrorContext | undefined;
}

/** A 2xx answer, its body read as text. */
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
  return { method, path: new URL(url).pathname };
}

/**
 * The transport under every client and sender: ky for sending, retries (with backoff, jitter and
 * Retry-After) and per-attempt timeouts; this class maps ky's errors to the SDK's and bounds the
 * body read by the same timeout, so a stalled body cannot hang the caller.
 */
export class HttpTransport {
  readonly #settings: HttpSettings;
  #ky: KyInstance | undefined;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
  }

  /** Sends `request`, retrying as configured, and reads the body. Throws an {@link IdGovError}. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const { logger } = this.#settings;
    const timeout = request.timeout ?? this.#settings.timeout;
    const what = summary(request.url, request.method);
    // Our own controller lets the body read below be timed out and abandoned like the attempt itself.
    const controller = new AbortController();
    const signal = request.signal ? AbortSignal.any([request.signal, controller.signal]) : controller.signal;
    let attempts = 0;
    const prepare = async (headers: Headers) => {
      attempts += 1;
      await request.beforeAttempt?.(headers, attempts);
    };
    const started = Date.now();
    let ky: KyModule | undefined;
    try {
      ky = await loadKy();
      const { isHTTPError } = ky;
      this.#ky ??= ky.default.create({ fetch: this.#settings.fetch, throwHttpErrors: true });
      const response = await this.#ky(request.url, {
        method: request.method,
        headers: { 'user-agent': this.#settings.userAgent, accept: 'application/json', ...request.headers },
        body: request.body,
        signal,
        timeout,
        redirect: request.redirect ?? 'follow',
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
      const timer = setTimeout(
        () => controller.abort(new DOMException('body read timed out', 'TimeoutError')),
        timeout,
      );
      let text: string;
      try {
        text = await response.text();
      } finally {
        clearTimeout(timer);
      }
      logger.debug(`${what.method} ${what.path} ${response.status}`, { ms: Date.now() - started, attempts });
      return { status: response.status, headers: response.headers, text, attempts };
    } catch (error) {
      throw this.#translate(error, request, what, attempts, ky);
    }
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
    if (isHTTPError(error)) {
      const { response } = error;
      const wait = exceededRetryAfterCap(error);
      const note =
        wait === undefined
          ? undefined
          : `The service asked to wait ${Math.ceil(wait / 1000)} s, longer than the SDK's 60 s cap; try again later.`;
      const init = { status: response.status, headers: response.headers, body: error.data, request: what };
      return makeAPIError(init, request.errorContext, note);
    }
    if (isTimeoutError(error) || (error instanceof DOMException && error.name === 'TimeoutError')) {
      return new TimeoutError(
        `${what.method} ${what.path} timed out after ${tries} of ${request.timeout ?? this.#settings.timeout} ms each; raise timeout or check the network.`,
      );
    }
    // NetworkError carries the socket-level cause (ECONNREFUSED, reset); never the request, whose headers hold tokens.
    const cause = isNetworkError(error) ? error.cause : error;
    return new ConnectionError(
      `Could not reach ${new URL(request.url).host} for ${what.method} ${what.path} after ${tries}: ${(cause as Error)?.message ?? cause}. Check the base URL and the network.`,
      { cause },
    );
  }
}
