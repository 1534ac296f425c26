import { type HTTPError, isHTTPError, type RetryOptions } from 'ky';
import { ResponseTooLargeError } from './errors.ts';

/**
 * The connection broke after an answer's headers arrived, while its body was read: retried like a
 * lost connection (ky would not: it knows only errors of `fetch` itself), reported as a break.
 */
export class BrokenAnswerError extends Error {
  override name = 'BrokenAnswerError';
}

/** The longest `Retry-After` the SDK sleeps; a longer one is raised as the error instead. */
export const RETRY_AFTER_CAP_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Statuses worth another attempt: request timeout, rate limit, and every server error. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

// 408, 429 and 500..599: ky needs the list to read Retry-After for them.
const RETRYABLE_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

/**
 * Delay before retry number `attempt` (1-based), before jitter: 0.5 s, 1 s, 2 s, 4 s, then 8 s.
 */
export function backoffDelay(attempt: number): number {
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
}

/** "Equal jitter": half the delay fixed, half random, so clients spread out but never retry at once. */
export function withJitter(delay: number): number {
  return delay / 2 + Math.random() * (delay / 2);
}

// A reset header's number at or above this many seconds is a Unix time, below it a delay: no service
// asks for a 54-year wait, and ky draws the same line (2024-01-01), so the wait we cap is the one ky sleeps.
const EPOCH_THRESHOLD_S = Date.parse('2024-01-01') / 1000;

/**
 * How long the service asked to wait, in ms, read as ky reads it: `Retry-After` (delay-seconds or an
 * HTTP date, RFC 9110 10.2.3); without it `RateLimit-Reset` (IETF draft), `X-RateLimit-Retry-After`,
 * then `X-RateLimit-Reset` (GitHub). The two reset headers are delay-seconds, or Unix seconds when
 * large (see above). Undefined if absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const header = (name: string) => headers.get(name)?.trim() || undefined;
  const retryAfter = header('retry-after');
  if (retryAfter !== undefined) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
  }
  for (const [name, epochAllowed] of [
    ['ratelimit-reset', true],
    ['x-ratelimit-retry-after', false],
    ['x-ratelimit-reset', true],
  ] as const) {
    const value = header(name);
    if (value === undefined) continue;
    if (!/^\d+$/.test(value)) return undefined;
    const seconds = Number(value);
    return epochAllowed && seconds >= EPOCH_THRESHOLD_S ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
  }
  return undefined;
}

/**
 * ky's `shouldRetry`: `false` refuses a retry, `true` forces one (with the backoff), `undefined`
 * lets ky's own checks decide (they honour Retry-After, which `true` would make ky ignore).
 */
export function refuseRetry(error: unknown): boolean | undefined {
  if (error instanceof BrokenAnswerError) return true;
  // Asking again would fetch the same too-large answer.
  if (error instanceof ResponseTooLargeError) return false;
  if (!isHTTPError(error)) return undefined; // timeouts and network errors: ky retries them
  if (!isRetryableStatus(error.response.status)) return false;
  // ky would clamp an over-long wait (Retry-After or a rate-limit reset) and retry early, against the server's wish: stop instead.
  return (retryAfterMs(error.response.headers) ?? 0) > RETRY_AFTER_CAP_MS ? false : undefined;
}

/** Whether the final error was a retryable status refused only because its Retry-After exceeds the cap. */
export function exceededRetryAfterCap(error: HTTPError): number | undefined {
  const wait = retryAfterMs(error.response.headers);
  return wait !== undefined && wait > RETRY_AFTER_CAP_MS ? wait : undefined;
}

/** ky's retry options for `limit` retries, with the policy above. POST is included: callers opt in per request. */
export function retryOptions(limit: number): RetryOptions {
  return {
    limit,
    methods: ['get', 'post'],
    statusCodes: RETRYABLE_STATUSES,
    afterStatusCodes: RETRYABLE_STATUSES,
    maxRetryAfter: RETRY_AFTER_CAP_MS,
    retryOnTimeout: true,
    delay: backoffDelay,
    jitter: withJitter,
    shouldRetry: ({ error }) => refuseRetry(error),
  };
}
