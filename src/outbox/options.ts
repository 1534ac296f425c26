/**
 * The options and results of {@link WebhookOutbox}: what a caller passes (and its checks) and gets back.
 *
 * @module
 */
import { ConfigurationError } from '../core/errors.ts';
import type { Logger, LogLevel } from '../core/logger.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import type { WebhookOutbox } from './outbox.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from './outcome.ts';
import type { OutboxAnswer, OutboxStore } from './store.ts';

/**
 * Options of {@link WebhookOutbox}.
 *
 * @group Outbox
 */
export interface WebhookOutboxOptions {
  /** Delivers the events; its URL names the listener the outbox's events go to. */
  readonly sender: WebhookSender;
  /** Where events are kept: `SqliteOutboxStore`, `PostgresOutboxStore`, or `MemoryOutboxStore` in tests. */
  readonly store: OutboxStore;
  /**
   * How many events may be in flight at once, in this process. Default 1: events go out one at a
   * time in enqueue order, across every worker of the store, and an event waiting to retry holds back
   * the ones after it. Above 1, order is given up: any due events go, oldest first.
   */
  readonly concurrency?: number | undefined;
  /**
   * Waits between attempts, in ms: the first after the first failure, and so on; the last repeats.
   * Default 10 s, 30 s, 1 min, 5 min, 15 min, 1 h, 2 h, then every 6 h.
   */
  readonly retrySchedule?: readonly number[] | undefined;
  /**
   * How long after enqueue an event may still be sent, in ms; then it is `expired`. At most the
   * service's 7-day idempotency window (past it, a resend could run the automation twice). Default
   * 7 days less an hour.
   */
  readonly expireAfterMs?: number | undefined;
  /** Timeout of one attempt, in ms. Default 30,000. The outbox makes one attempt per claim and retries itself. */
  readonly attemptTimeoutMs?: number | undefined;
  /**
   * How long a worker holds the events it claimed, in ms; a worker that died is replaced after it.
   * Must be more than twice `attemptTimeoutMs`. Default 5 minutes.
   */
  readonly leaseMs?: number | undefined;
  /** {@link WebhookOutbox.start}: how often to look for events enqueued by other processes, in ms. Default 1,000. */
  readonly pollIntervalMs?: number | undefined;
  /** Called after every attempt, for logs and metrics. An exception it throws is logged and ignored. */
  readonly onAttempt?: ((report: OutboxAttempt) => void) | undefined;
  /** The clock, in Unix ms. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Where log lines go. Default `console`. */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `off`. */
  readonly logLevel?: LogLevel | undefined;
}

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
   * `released` (the outbox stopped during the attempt; the event is due again at once).
   */
  readonly outcome: 'delivered' | 'retry' | 'dead' | 'expired' | 'released';
  /** The listener's answer, or the error. */
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

/** `value`, checked to be a positive whole number, or `fallback` when it is not given. @internal */
export function positiveInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigurationError(`${name} must be a positive whole number (got ${value}).`);
  }
  return value;
}

/** The retry schedule given, checked, or the default one. @internal */
export function retrySchedule(schedule: readonly number[] | undefined): readonly number[] {
  if (schedule === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
  if (schedule.length === 0 || schedule.some((ms) => !Number.isInteger(ms) || ms < 0)) {
    throw new ConfigurationError(
      `retrySchedule must be a non-empty list of waits in whole ms (got ${JSON.stringify(schedule)}).`,
    );
  }
  return [...schedule];
}
