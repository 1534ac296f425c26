import { type HTTPError, isHTTPError, isNetworkError, isTimeoutError, type RetryOptions } from 'ky';

/**
 * The connection broke after an answer's headers arrived, while its body was read: retried like a
 * lost connection (ky would not: it knows only errors of `fetch` itself), reported as a break.
 */
export class BrokenAnswerError extends Error {
  override name = 'BrokenAnswerError';
  /** The request ID of the answer that broke off. */
  readonly requestId: string | undefined;
  constructor(message: string, options: { readonly cause: unknown; readonly requestId: string | undefined }) {
    super(message, { cause: options.cause });
    this.requestId = options.requestId;
  }
}

/** The longest `Retry-After` the SDK sleeps; a longer one is raised as the error instead. */
export const RETRY_AFTER_CAP_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Statuses worth another attempt: request timeout, rate limit, and every server error. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

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

// RFC 9110 5.6.7's three forms: IMF-fixdate, the obsolete RFC 850 form and asctime; a day of one
// digit too, as Java's RFC_1123_DATE_TIME writes it.
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{1,2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/**
 * How long the service asked to wait, in ms: `Retry-After` (delay-seconds, fractional too, or an
 * HTTP date, RFC 9110 10.2.3); without it `RateLimit-Reset` (IETF draft), `X-RateLimit-Retry-After`,
 * then `X-RateLimit-Reset` (GitHub). The two reset headers are delay-seconds, or Unix seconds when
 * large (see above). Undefined if absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const header = (name: string) => headers.get(name)?.trim() || undefined;
  const retryAfter = header('retry-after');
  if (retryAfter !== undefined) {
    // Fractional seconds are not RFC 9110's, but their meaning is plain.
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
    // Only a real HTTP date goes to Date.parse, which reads "-1" or "5, 5" as dates in 2001:
    // a wait of zero, every retry at once.
    if (!HTTP_DATE.test(retryAfter)) return undefined;
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

/** A retry the policy decided on: why, and how long to wait first. */
export interface RetryPlan {
  /** `status` (408, 429, 5xx), `timeout` or `network` (a failed or broken connection). */
  readonly reason: 'status' | 'timeout' | 'network';
  /** The status retried, for `reason: 'status'`. */
  readonly status?: number | undefined;
  /** The wait before the next attempt: the service's Retry-After, else the backoff with jitter. */
  readonly delayMs: number;
}

/**
 * The retry policy, whole: whether the failure of retry number `retry` (1-based) is retried, and
 * after how long; undefined when it is not. ky asks it and waits what it says, so that the wait is
 * known (and reported) before it starts.
 */
export function planRetry(error: unknown, retry: number): RetryPlan | undefined {
  const backoff = () => withJitter(backoffDelay(retry));
  if (error instanceof BrokenAnswerError) return { reason: 'network', delayMs: backoff() };
  if (isTimeoutError(error)) return { reason: 'timeout', delayMs: backoff() };
  // A port the Fetch standard blocks (9, 25, 6000...) can never be sent to: asking again changes nothing.
  if (isNetworkError(error)) return neverSent(error) ? undefined : { reason: 'network', delayMs: backoff() };
  // Anything else (a too-large answer, which asking again would fetch again; a bug) is not retried.
  if (!isHTTPError(error)) return undefined;
  const { status, headers } = error.response;
  if (!isRetryableStatus(status)) return undefined;
  const asked = retryAfterMs(headers);
  // An over-long wait is the service's wish too: stop and say so rather than retry early.
  if (asked !== undefined && asked > RETRY_AFTER_CAP_MS) return undefined;
  return { reason: 'status', status, delayMs: asked ?? backoff() };
}

/** Whether the final error was a retryable status refused only because its Retry-After exceeds the cap. */
export function exceededRetryAfterCap(error: HTTPError): number | undefined {
  const wait = retryAfterMs(error.response.headers);
  return wait !== undefined && wait > RETRY_AFTER_CAP_MS ? wait : undefined;
}

/**
 * ky's retry options for `limit` retries, with {@link planRetry} as the whole policy: `onPlan` is
 * told of each retry before its wait; none once the caller's `signal` is aborted. POST is
 * included: callers opt in per request.
 */
export function retryOptions(
  limit: number,
  onPlan: (plan: RetryPlan, retry: number) => void,
  signal?: AbortSignal | undefined,
): RetryOptions {
  let planned = 0;
  return {
    limit,
    methods: ['get', 'post'],
    retryOnTimeout: true,
    // ky waits delay(jitter(...)): both hand back the planned wait unchanged.
    delay: () => planned,
    jitter: (delay) => delay,
    shouldRetry: ({ error, retryCount }) => {
      // The caller's own signal (an AbortSignal.timeout too) ended it: no retry to plan or report.
      if (signal?.aborted) return false;
      const plan = planRetry(error, retryCount);
      if (!plan) return false;
      planned = plan.delayMs;
      onPlan(plan, retryCount);
      return true;
    },
  };
}

/** Whether fetch refused to send the request at all: its URL's port is one the Fetch standard blocks. */
function neverSent(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    if ((e as Error)?.message === 'bad port') return true;
  }
  return false;
}
