/**
 * Why an event could not be sent again: what `WebhookOutbox.retry` and `idgov outbox retry` say.
 *
 * @module
 */
import type { OutboxEvent } from './store.ts';

/**
 * Why the store refused to retry `event` (as read after the refusal) at `now`. An event still
 * pending in its window is held by an attempt in flight (or by the lease of a worker that died, until
 * it runs out): retried, it would be sent twice at once, and enqueued anew it would run the automation
 * twice; wait for the attempt.
 */
export function retryRefusal(event: OutboxEvent | undefined, now: number): string {
  if (!event) return 'is not in the outbox';
  if (event.state === 'delivered') return 'was delivered';
  if (event.state === 'expired' || now >= event.expiresAt)
    return 'is past its idempotency window (expired: its window has ended, and the listener would no longer take it as the same event): enqueue it as a new event if the automation should run again';
  if (event.damaged)
    return `is damaged in the store (${event.damaged}) and can never be sent: once a drain has marked it dead, delete it with idgov outbox purge --dead-before DATE --include-retryable --listener URL (which also deletes that listener's other dead events from before DATE, those still in their window too), and enqueue it anew if it should be sent`;
  return "has an attempt in flight (a live lease holds it): try again once the attempt ends, or, if that attempt's worker died, once its lease runs out (idgov outbox status shows when)";
}
