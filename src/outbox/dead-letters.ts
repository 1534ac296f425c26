/**
 * A page of an outbox's dead letters, what `WebhookOutbox.deadLetters` gives: checked, and read on
 * from where the page before ended.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors/errors.ts';
import { positiveInteger } from './options.ts';
import type { OutboxEvent, OutboxStore } from './store.ts';

/**
 * Which dead letters `WebhookOutbox.deadLetters` gives.
 *
 * @group Outbox
 */
export interface DeadLettersQuery {
  /** At most this many. Default 100. */
  readonly limit?: number | undefined;
  /** The last event ID of the page before: the page after it. */
  readonly after?: string | undefined;
}

/** The page of `listener`'s dead letters in `store` that `query` asks for, oldest first. */
export async function deadLettersOf(
  store: OutboxStore,
  listener: string,
  query: DeadLettersQuery,
): Promise<OutboxEvent[]> {
  const { limit, after } = query ?? {};
  if (after !== undefined && typeof after !== 'string') {
    throw new ConfigurationError('deadLetters: after must be the last event ID of the page before.');
  }
  const page = await store.list(listener, 'dead', positiveInteger(limit, 'limit', 100), after);
  // A store written to the contract before `after` hands back the first page again: said, not looped on.
  if (after !== undefined && page.some((event) => event.eventId === after)) {
    throw new ConfigurationError(
      "deadLetters: the store's list() ignores after; give it the after parameter.",
    );
  }
  return page;
}
