import { optionKeys } from '../../internal/known-options.ts';
import { wholeNumberProblem } from '../../internal/numbers.ts';
import { signalProblem } from '../../internal/signal.ts';
import { describeValue } from '../../internal/values.ts';
import { MAX_TIMER_MS } from '../../internal/wait.ts';
import { ConfigurationError, RequestValidationError } from '../errors/errors.ts';
import type { TransportEvents } from '../events.ts';
import { type HookHandlers, Hooks } from '../hooks.ts';
import { createLogger, isLogLevel, type Logger, type LogLevel } from '../logger.ts';

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
   * Timeout of each attempt in ms, from sending to the last byte of the body (and, for a client's
   * request, of its wait for an access token before it): a whole number from 1 to 2 147 483 647
   * (about 24.8 days, the longest timer runtimes allow). Default 30 000. There is no "no timeout":
   * `0` is refused rather than read as "time out at once" or "never".
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
 * logger and hooks built, the `User-Agent` composed.
 */
export interface ResolvedTransportOptions<Events extends TransportEvents = TransportEvents> {
  /** The component's hooks. */
  readonly hooks: Hooks<Events>;
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

/** The names of {@link TransportOptions}, which clients' and senders' options share. */
export const TRANSPORT_OPTIONS = optionKeys<TransportOptions>()([
  'maxRetries',
  'timeout',
  'maxResponseBytes',
  'fetch',
  'userAgent',
  'logger',
  'logLevel',
]);

/** 32 MiB: a page of 100 task views with every expansion is a few MiB; a hostile 50 MB answer is refused. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

const LIMITS = {
  timeout: [1, MAX_TIMER_MS, 'use a large timeout such as 600000 to wait long; there is no "no timeout"'],
  maxRetries: [0, 100, 'use 0 to disable retries'],
  maxResponseBytes: [1, Number.MAX_SAFE_INTEGER, 'the default is 33554432 (32 MiB)'],
} as const;

/** Why option `name` is out of its range, with the fix, or undefined. */
function limitProblem(name: keyof typeof LIMITS, value: unknown): string | undefined {
  const [min, max, fix] = LIMITS[name];
  const problem = wholeNumberProblem(value, min, max);
  return problem && `${name} ${problem}: ${fix}.`;
}

/** Refuses a bad per-call `timeout`, `maxRetries`, `signal` or `hooks` before anything is sent. */
export function checkCallOptions(options: {
  readonly timeout?: unknown;
  readonly maxRetries?: unknown;
  readonly signal?: unknown;
  readonly hooks?: unknown;
}): void {
  for (const name of ['timeout', 'maxRetries'] as const) {
    const problem = limitProblem(name, options[name]);
    if (problem) throw new RequestValidationError(problem, name);
  }
  const badSignal = signalProblem(options.signal);
  if (badSignal) throw new RequestValidationError(badSignal, 'signal');
  if (options.hooks !== undefined && (typeof options.hooks !== 'object' || options.hooks === null)) {
    throw new RequestValidationError(
      `hooks must be an object of handlers by event name, e.g. { retry: (event) => ... }; got ${describeValue(options.hooks)}.`,
      'hooks',
    );
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

/**
 * The one place transport options get their defaults: each checked (a bad one refused with a
 * {@link ConfigurationError} naming it and the fix), the logger built, the `User-Agent` composed.
 * `defaults` are what differs between the components that send (the client, the webhook sender).
 */
export function resolveTransportOptions<Events extends TransportEvents>(
  options: TransportOptions & { readonly hooks?: HookHandlers<Events> | undefined },
  defaults: { readonly maxRetries: number; readonly userAgent: string },
): ResolvedTransportOptions<Events> {
  for (const name of ['timeout', 'maxRetries', 'maxResponseBytes'] as const) {
    const problem = limitProblem(name, options[name]);
    if (problem) throw new ConfigurationError(problem);
  }
  if (options.logLevel !== undefined && !isLogLevel(options.logLevel)) {
    throw new ConfigurationError(
      `logLevel must be one of off, error, warn, info, debug (got ${JSON.stringify(String(options.logLevel)).slice(0, 40)}).`,
    );
  }
  const badLogger = (['error', 'warn', 'info', 'debug'] as const).find(
    (level) => options.logger !== undefined && typeof options.logger?.[level] !== 'function',
  );
  if (badLogger) {
    throw new ConfigurationError(
      `logger.${badLogger} is not a function: a logger has error, warn, info and debug methods (console works).`,
    );
  }
  const logger = createLogger(options.logger, options.logLevel);
  return {
    hooks: new Hooks<Events>(logger, options.hooks),
    fetch: options.fetch,
    timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? defaults.maxRetries,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    userAgent: withProduct(options.userAgent, defaults.userAgent),
    logger,
  };
}
