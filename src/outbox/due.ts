/**
 * When a pending outbox event may be attempted: once in JavaScript for the in-memory store, and as
 * SQL for the SQLite and PostgreSQL stores.
 *
 * @module
 */
import type { OutboxEvent } from './store.ts';

/**
 * Whether a pending event may be attempted at `now`. A last attempt (or an enqueue) more than
 * `toleranceMs` (the lease length) later than now means the clock went back: waiting for it to catch
 * up could stall the event for as long as the jump, while an early attempt is harmless (the event ID
 * makes it idempotent). Within the tolerance it is a worker whose clock runs a little behind: it waits,
 * so it does not skip the retry schedule.
 */
export function isDue(event: OutboxEvent, now: number, toleranceMs: number): boolean {
  return event.nextAttemptAt <= now || (event.lastAttemptAt ?? event.enqueuedAt) > now + toleranceMs;
}

/**
 * SQL: the row is due at the time in placeholder `now` ({@link isDue}), with the lease length in
 * `leaseMs`. SQLite's `?` is one value per use, so `nowAgain` names the second use of the time.
 */
export function dueSql(now: string, leaseMs: string, nowAgain: string = now): string {
  return `(next_attempt_at <= ${now} OR coalesce(last_attempt_at, enqueued_at) > ${nowAgain} + ${leaseMs})`;
}
