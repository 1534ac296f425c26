/**
 * What the outbox's calls take and give back: enqueue receipts, attempt reports, drain summaries.
 *
 * @module
 */
import type { OutboxAnswer } from './store.ts';

/**
 * Options of {@link WebhookOutbox.enqueue}.
 *
 * @group Outbox
 */
export interface EnqueueOptions {
  /** The event ID (a lower-case UUID v4). Default: a new one. Pass your own to make enqueue itself idempotent. */
  readonly eventId?: string | undefined;
}

/**
 * What {@link WebhookOutbox.enqueue} stored.
 *
 * @group Outbox
 */
export interface OutboxReceipt {
  /** The event ID, sent with every attempt. */
  readonly eventId: string;
  /** True when this event ID with this same body was already in the outbox: nothing new was stored. */
  readonly duplicate: boolean;
}

/**
 * One attempt, as {@link WebhookOutboxOptions.onAttempt} reports it.
 *
 * @group Outbox
 */
export interface OutboxAttempt {
  /** The event ID. */
  readonly eventId: string;
  /** Which attempt of this event this was, from 1. */
  readonly attempt: number;
  /**
   * `delivered` (200 or 409), `retry` (429, 5xx, no answer: tried again at `nextAttemptAt`), `dead`
   * (refused for good), `expired` (the next attempt would fall past the idempotency window), or
   * `released` (the outbox stopped, or lost the lease, during the attempt; the event is due again
   * at once, the attempt counted if its request had gone out).
   */
  readonly outcome: 'delivered' | 'retry' | 'dead' | 'expired' | 'released';
  /**
   * The listener's answer, or the error; the values of the listener URL's query (a gateway's key) as
   * `***`, should the listener echo its URL (the store keeps it whole).
   */
  readonly answer?: OutboxAnswer | undefined;
  /** When a `retry` is due. */
  readonly nextAttemptAt?: number | undefined;
  /**
   * False when the outcome could not be recorded: another worker took the event over (this
   * worker's lease ran out mid-attempt), or the store failed for half a lease. The event is attempted
   * again; a listener that had accepted it answers 409, counted as delivered.
   */
  readonly recorded: boolean;
  /** How long the attempt took, in ms. */
  readonly durationMs: number;
}

/**
 * What one {@link WebhookOutbox.drain} did.
 *
 * @group Outbox
 */
export interface DrainSummary {
  /** Attempts made. */
  attempts: number;
  /** Events delivered (200 or 409). */
  delivered: number;
  /** Attempts that failed and were scheduled again. */
  retried: number;
  /** Events moved to `dead`. */
  dead: number;
  /**
   * Events that reached the end of their window without a delivery: those whose next attempt would
   * fall past it, and those this drain found already past it.
   */
  expired: number;
}

/**
 * Options of {@link WebhookOutbox.drain}.
 *
 * @group Outbox
 */
export interface DrainOptions {
  /** Stops the drain; an attempt in flight is abandoned and its event left due. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * How far a {@link WebhookOutbox.drain} has got, told to the `drain` hook after each round of
 * claims and once at its end: the summary so far.
 *
 * @group Outbox
 */
export interface DrainProgress extends Readonly<DrainSummary> {
  /** The listener drained. */
  readonly listener: string;
  /** True once the drain is over (nothing due is left, or it was stopped). */
  readonly done: boolean;
}

/**
 * The events a {@link WebhookOutbox} tells its hooks.
 *
 * @group Outbox
 */
export interface OutboxEvents {
  /** An attempt ended (delivered, retry, dead, expired or released). */
  readonly attempt: OutboxAttempt;
  /** A drain made progress, or ended. */
  readonly drain: DrainProgress;
  /** A drain found events it may not claim yet: another worker holds them (once a holder). */
  readonly waiting: OutboxWaiting;
}

/**
 * A drain waits for events another worker holds: told once a holder, with when its lease runs out.
 *
 * @group Outbox
 */
export interface OutboxWaiting {
  /** The listener URL. */
  readonly listener: string;
  /** The oldest event the holder holds. */
  readonly eventId: string;
  /** Who holds it: the worker's name (with its process, on the SQLite store). */
  readonly holder: string;
  /** When its lease runs out unless renewed, ISO 8601. */
  readonly until: string;
}
