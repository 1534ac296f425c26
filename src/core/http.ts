import { ConfigurationError, type ErrorContext, type IdGovError, RequestValidationError } from './errors.ts';
import { lazily, loadError } from './lazy.ts';
import { createLogger, type Logger, type LogLevel } from './logger.ts';

type SendModule = typeof import('./http-send.ts');
const loadSend: () => Promise<SendModule> = lazily(() => import('./http-send.ts'));

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
   * `ResponseTooLargeError` (from `@idgov/sdk`), read no further. Default 33 554 432 (32 MiB), far above a page of
   * 100 task views with every expansion. Error bodies are bounded by ky at 10 MiB.
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * `fetch` to use (a proxying or instrumented one). Default: the global `fetch`. Called once per
   * attempt with a `Request` that carries the attempt's headers (the token or signature included),
   * the body as serialised (the same bytes on every attempt), the attempt's `signal` (its timeout
   * and the caller's abort) and `redirect: 'manual'`.
   */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /**
   * Your product, sent before the SDK's in `User-Agent` (`my-app/1.2 idgov-sdk-js/0.1.0`), so the
   * service's operators can tell your integration's traffic apart. Printable ASCII.
   */
  readonly userAgent?: string | undefined;
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

/** The caller's product before the SDK's (RFC 9110 10.1.5: the more specific product first). */
function withProduct(product: unknown, sdk: string): string {
  if (product === undefined) return sdk;
  if (typeof product !== 'string' || !/^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/.test(product)) {
    throw new ConfigurationError(
      'userAgent must be printable ASCII without line breaks or surrounding spaces, at most 256 characters, e.g. "my-app/1.2".',
    );
  }
  return `${product} ${sdk}`;
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
    userAgent: withProduct(options.userAgent, defaults.userAgent),
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
  /**
   * True when the reader found, as it decoded, that the text has neither `_proto` nor a `\u`
   * escape: it spells no `__proto__` key, and the parser need not look for one.
   */
  readonly protoFree?: boolean | undefined;
  /** Attempts made, 1 when the first one succeeded. */
  readonly attempts: number;
}

/**
 * The transport under every client and sender: ky for sending, retries (with backoff, jitter and
 * Retry-After) and per-attempt timeouts; the body is read inside each attempt, so the timeout bounds
 * it and a broken body is retried; ky's errors become the SDK's. All of that is in http-send.ts,
 * loaded with the first request: importing the SDK, or building a client, does not load it.
 */
export class HttpTransport {
  readonly #settings: ResolvedTransportOptions;

  constructor(settings: ResolvedTransportOptions) {
    this.#settings = settings;
  }

  /** Sends `request`, retrying as configured, and reads the body. Throws an {@link IdGovError}. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    checkCallOptions(request);
    let sending: SendModule;
    try {
      sending = await loadSend();
    } catch (error) {
      throw loadError(`${request.method} ${new URL(request.url).pathname}`, error, request.signal);
    }
    return sending.sendRequest(this.#settings, request);
  }
}
