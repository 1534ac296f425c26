/**
 * A durable outbox for inbound webhooks: events are stored before they are sent, and delivered once
 * across crashes and restarts. The stores for SQLite and PostgreSQL have their own entry points,
 * `@idgov/sdk/outbox/sqlite` and `@idgov/sdk/outbox/postgres`.
 *
 * @module outbox
 */

export type { HookHandlers, Hooks } from '../core/hooks.ts';
export { StoreError } from '../stores/store-error.ts';
export type { DeadLettersQuery } from './dead-letters.ts';
export { MemoryOutboxStore } from './memory-store.ts';
export type { WebhookOutboxOptions } from './options.ts';
export { WebhookOutbox } from './outbox.ts';
export { DEFAULT_RETRY_SCHEDULE_MS } from './outcome.ts';
export type {
  DrainOptions,
  DrainProgress,
  DrainSummary,
  EnqueueOptions,
  OutboxAttempt,
  OutboxEvents,
  OutboxReceipt,
  OutboxWaiting,
} from './reports.ts';
export type {
  AttemptOutcome,
  ClaimedEvent,
  ClaimOptions,
  EventLease,
  FinishedState,
  NewOutboxEvent,
  OutboxAnswer,
  OutboxEvent,
  OutboxState,
  OutboxStore,
  PurgeOptions,
} from './store.ts';
