import { ConnectionError } from '../core/errors/errors.ts';
import { APIError, RedirectError } from '../core/errors/status-errors.ts';
import { isRetryableStatus, retryAfterMs } from '../core/transport/retry.ts';
import type { WebhookDelivery } from '../webhooks/sender-options.ts';
import type { OutboxAnswer } from './store.ts';

/** The longest answer body kept for operators: enough to read the reason, too little to hold a payload. */
const MAX_KEPT_BODY = 1_000;

/**
 * The default waits between attempts: quick retries for a blip, then hours apart for an outage,
 * every 6 hours once the list runs out, until the event expires.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  10_000,
  30_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  60 * 60_000,
  2 * 60 * 60_000,
  6 * 60 * 60_000,
];

/** The wait before attempt number `attempts + 1`, after `attempts` failed ones. */
export function scheduledDelay(schedule: readonly number[], attempts: number): number {
  return schedule[Math.min(attempts, schedule.length) - 1] ?? schedule[schedule.length - 1] ?? 0;
}

// A NUL byte, or half a surrogate pair, is text no PostgreSQL `text` column takes ("invalid byte
// sequence"): an answer holding one would fail the recording of its outcome, on every attempt.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character this finds.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as every store can keep it: cut to a size an operator reads, unstorable characters replaced. */
function storable(text: string): string {
  const cut = text.length > MAX_KEPT_BODY ? `${text.slice(0, MAX_KEPT_BODY)}…` : text;
  return cut.replace(UNSTORABLE, '\uFFFD');
}

function keptBody(body: unknown): string | undefined {
  if (body === undefined || body === null || body === '') return undefined;
  return storable(typeof body === 'string' ? body : JSON.stringify(body));
}

function describe(error: unknown): string {
  return storable(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/**
 * What one `send()` ended in: `delivered` (200 or 409), `retry` (429, 408, 5xx, no answer; with the
 * wait the listener asked for, if any), or `dead` (any other refusal, and errors the next attempt
 * would repeat: a redirect, a bad key, a body over the sender's limit).
 */
export type Verdict =
  | { readonly kind: 'delivered'; readonly answer: OutboxAnswer }
  | { readonly kind: 'retry'; readonly answer: OutboxAnswer; readonly retryAfterMs?: number | undefined }
  | { readonly kind: 'dead'; readonly answer: OutboxAnswer };

/**
 * Sorts the result of `sender.send()` into a {@link Verdict}; a `Retry-After` date is read against
 * `now`, the outbox's clock, as every other time of the outbox is.
 */
export function judge(result: { delivery: WebhookDelivery } | { error: unknown }, now: number): Verdict {
  if ('delivery' in result) return { kind: 'delivered', answer: { status: result.delivery.httpStatus } };
  const { error } = result;
  // The listener's status decides: a 200 whose body could not be read (too large) was still accepted.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && ((status >= 200 && status < 300) || status === 409)) {
    return { kind: 'delivered', answer: { status, error: describe(error) } };
  }
  // Where the listener moved is what the operator needs to mend it.
  if (error instanceof RedirectError) {
    const to = error.location ?? 'an undisclosed location';
    const answer = {
      status: error.status,
      body: keptBody(error.body),
      error: `redirected to ${to}, which is not followed: if you trust it, enqueue to the listener there`,
    };
    return { kind: 'dead', answer };
  }
  if (error instanceof APIError) {
    const answer = { status: error.status, body: keptBody(error.body) };
    if (!isRetryableStatus(error.status)) return { kind: 'dead', answer };
    return { kind: 'retry', answer, retryAfterMs: retryAfterMs(error.headers, now) };
  }
  if (error instanceof ConnectionError) return { kind: 'retry', answer: { error: describe(error) } };
  return { kind: 'dead', answer: { error: describe(error) } };
}
