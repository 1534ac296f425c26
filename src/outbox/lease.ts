/**
 * The lease rules of the outbox's claims, once: in JavaScript for the in-memory store, and as SQL
 * predicates for the SQLite and PostgreSQL stores, so that the three cannot disagree.
 *
 * @internal
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
 * Whether a lease holds at `now`: until `leaseUntil`, even for a worker whose clock is behind the
 * holder's. Only a lease taken more than its own length "in the future" is free: the clock jumped back.
 */
export function isHeld(leasedAt: number | undefined, leaseUntil: number | undefined, now: number): boolean {
  if (leasedAt === undefined || leaseUntil === undefined) return false;
  return now < leaseUntil && leasedAt - now <= leaseUntil - leasedAt;
}

/**
 * SQL: the row is due at the time in placeholder `now` ({@link isDue}), with the lease length in
 * `leaseMs`. SQLite's `?` is one value per use, so `nowAgain` names the second use of the time.
 */
export function dueSql(now: string, leaseMs: string, nowAgain: string = now): string {
  return `(next_attempt_at <= ${now} OR coalesce(last_attempt_at, enqueued_at) > ${nowAgain} + ${leaseMs})`;
}

/** SQL: no live lease holds the row at `now` (the negation of {@link isHeld}); placeholders as for {@link dueSql}. */
export function notHeldSql(now: string, nowAgain: string = now): string {
  return `(lease_until IS NULL OR lease_until <= ${now} OR leased_at - ${nowAgain} > lease_until - leased_at)`;
}
