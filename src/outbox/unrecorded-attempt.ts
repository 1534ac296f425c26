/**
 * An attempt whose lease was let go of by no one: its worker was killed, or lost the store, after
 * it claimed the event and before it recorded an outcome. The request may have reached the
 * listener, so whatever frees or takes over such a lease (another worker's claim, `retry`, expiry)
 * counts the attempt: `attempts` never says fewer than the listener may have seen. The rule once,
 * in JavaScript for the in-memory store and as SQL for SQLite and PostgreSQL, as the lease rules
 * are (`src/stores/lease.ts`).
 *
 * @module
 */
import type { LeaseFields } from '../stores/lease.ts';
import type { OutboxEvent } from './store.ts';

/** The `lastAnswer.error` of an attempt counted so. */
export const UNRECORDED_ATTEMPT =
  'no outcome recorded: the worker attempting it stopped (killed, or cut off from the store) before it could record one; the listener may have received it';

/**
 * The `lastAnswer.error` of an attempt cut short once its request was on its way (the outbox
 * stopped, or lost its lease): counted, since it too may have reached the listener.
 */
export const CUT_SHORT_ATTEMPT =
  'the attempt was cut short (the outbox stopped, or lost its lease) after its request went out; the listener may have received it';

/**
 * SQL assignments that count the unrecorded attempt of a row whose lease is being freed or taken
 * over in the same `UPDATE` (a row no lease holds keeps its fields). When it ended is not known:
 * `last_attempt_at` is when its worker last renewed its lease, the last sign of it.
 */
export const COUNT_UNRECORDED_SQL = `attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END,
  last_attempt_at = CASE WHEN lease_token IS NULL THEN last_attempt_at ELSE leased_at END,
  last_status = CASE WHEN lease_token IS NULL THEN last_status END,
  last_body = CASE WHEN lease_token IS NULL THEN last_body END,
  last_error = CASE WHEN lease_token IS NULL THEN last_error ELSE '${UNRECORDED_ATTEMPT}' END`;

/** {@link COUNT_UNRECORDED_SQL} for an event in memory, given the lease about to be freed or taken over. */
export function countUnrecorded(event: OutboxEvent, lease: LeaseFields): OutboxEvent {
  if (lease.leaseToken === undefined) return event;
  return {
    ...event,
    attempts: event.attempts + 1,
    lastAttemptAt: lease.leasedAt,
    lastAnswer: { error: UNRECORDED_ATTEMPT },
  };
}
