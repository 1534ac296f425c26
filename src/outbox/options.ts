/**
 * The options of {@link WebhookOutbox}, and the one place they get their defaults.
 *
 * @module
 */

import { ConfigurationError } from '../core/errors/errors.ts';
import { type HookHandlers, Hooks } from '../core/hooks.ts';
import { createLogger, type Logger, type LogLevel } from '../core/logger.ts';
import { optionKeys, unknownOptionProblem } from '../internal/known-options.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { MAX_TIMER_MS } from '../internal/wait.ts';
import { EVENT_RETENTION_MS } from '../webhooks/limits.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from './outcome.ts';
import type { OutboxAttempt, OutboxEvents } from './reports.ts';
import type { OutboxStore } from './store.ts';
import { StoreClock } from './store-clock.ts';

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
   * How long after its last heartbeat a worker's hold on the events it claimed lasts, in ms: the
   * worker renews it every sixth of this while an attempt is in flight (however slow the
   * listener), and the events of one that died pass on this long after it was last heard from (at
   * once, on the SQLite store, for a process of the same machine that is gone). At least 1,000.
   * Default 15 seconds.
   */
  readonly leaseMs?: number | undefined;
  /** {@link WebhookOutbox.start}: how often to look for events enqueued by other processes, in ms. Default 1,000. */
  readonly pollIntervalMs?: number | undefined;
  /** Called after every attempt, for logs and metrics. An exception it throws is logged and ignored. */
  readonly onAttempt?: ((report: OutboxAttempt) => void) | undefined;
  /**
   * Handlers told of every attempt and of each drain's progress (more can be added with
   * `outbox.hooks.on()`); a handler that throws is logged and ignored.
   */
  readonly hooks?: HookHandlers<OutboxEvents> | undefined;
  /**
   * The clock, in Unix ms, taken as it is. Default: the store's where it has a clock of its own
   * (PostgreSQL: workers on machines whose clocks disagree would otherwise take over each other's
   * live leases), with a warning where this machine's is a second or more off it; else this machine's.
   */
  readonly now?: (() => number) | undefined;
  /** Where log lines go. Default: every level to `console.error` (stderr). */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn` (to stderr). */
  readonly logLevel?: LogLevel | undefined;
}

/** {@link WebhookOutboxOptions} with every default applied and checked. @internal */
export interface ResolvedOutboxOptions {
  readonly sender: WebhookSender;
  readonly store: OutboxStore;
  readonly concurrency: number;
  readonly retrySchedule: readonly number[];
  readonly expireAfterMs: number;
  readonly attemptTimeoutMs: number;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  readonly onAttempt: ((report: OutboxAttempt) => void) | undefined;
  readonly now: () => number;
  /** Reads the store's clock for {@link ResolvedOutboxOptions.now} when due (`StoreClock.settle`): awaited before a lease is judged or an event dated. */
  readonly settleClock: (wait?: 'due' | 'moved') => Promise<void>;
  readonly logger: Logger;
  readonly hooks: Hooks<OutboxEvents>;
}

/** Margin kept before the end of the service's idempotency window, for clock skew between us and it. */
const WINDOW_MARGIN_MS = 60 * 60_000;

/** `value`, checked to be a positive whole number, or `fallback` when it is not given. @internal */
export function positiveInteger(
  value: number | undefined,
  name: string,
  fallback: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  const problem = wholeNumberProblem(value, 1, max);
  if (problem) throw new ConfigurationError(`${name} ${problem}.`);
  return value ?? fallback;
}

function retrySchedule(schedule: readonly number[] | undefined): readonly number[] {
  if (schedule === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
  if (schedule.length === 0 || schedule.some((ms) => wholeNumberProblem(ms, 0) !== undefined)) {
    throw new ConfigurationError(
      `retrySchedule must be a non-empty list of waits in whole ms (got ${JSON.stringify(schedule)}).`,
    );
  }
  return [...schedule];
}

const OUTBOX_OPTIONS = optionKeys<WebhookOutboxOptions>()([
  'sender',
  'store',
  'concurrency',
  'retrySchedule',
  'expireAfterMs',
  'attemptTimeoutMs',
  'leaseMs',
  'pollIntervalMs',
  'onAttempt',
  'hooks',
  'now',
  'logger',
  'logLevel',
]);

/** The one place outbox options get their defaults; a bad one is refused with a {@link ConfigurationError}. @internal */
export function resolveOutboxOptions(options: WebhookOutboxOptions): ResolvedOutboxOptions {
  const unknown = unknownOptionProblem('WebhookOutbox', options, OUTBOX_OPTIONS);
  if (unknown) throw new ConfigurationError(unknown);
  if (!options.sender || !options.store) {
    throw new ConfigurationError('Pass sender (a WebhookSender) and store (where events are kept).');
  }
  const expireAfterMs = positiveInteger(
    options.expireAfterMs,
    'expireAfterMs',
    EVENT_RETENTION_MS - WINDOW_MARGIN_MS,
  );
  if (expireAfterMs > EVENT_RETENTION_MS) {
    throw new ConfigurationError(
      `expireAfterMs must be at most 7 days, the service's idempotency window (got ${expireAfterMs}): past it a resend could run the automation twice.`,
    );
  }
  const logger = createLogger(options.logger, options.logLevel);
  const attemptTimeoutMs = positiveInteger(
    options.attemptTimeoutMs,
    'attemptTimeoutMs',
    30_000,
    MAX_TIMER_MS,
  );
  const leaseMs = positiveInteger(options.leaseMs, 'leaseMs', 15_000, MAX_TIMER_MS);
  if (leaseMs < 1_000) {
    throw new ConfigurationError(
      `leaseMs must be at least 1,000 (got ${leaseMs}): a heartbeat renews it every sixth of it, and a shorter one would be lost to a pause of the process.`,
    );
  }
  return {
    sender: options.sender,
    store: options.store,
    concurrency: positiveInteger(options.concurrency, 'concurrency', 1),
    retrySchedule: retrySchedule(options.retrySchedule),
    expireAfterMs,
    attemptTimeoutMs,
    leaseMs,
    pollIntervalMs: positiveInteger(options.pollIntervalMs, 'pollIntervalMs', 1_000, MAX_TIMER_MS),
    onAttempt: options.onAttempt,
    ...(options.now
      ? { now: wholeMs(options.now), settleClock: async () => {} }
      : storeTime(options.store, logger)),
    logger,
    hooks: new Hooks<OutboxEvents>(logger, options.hooks),
  };
}

/** The default clock: this machine's, or the store's ({@link StoreClock}). */
function storeTime(store: OutboxStore, logger: Logger): Pick<ResolvedOutboxOptions, 'now' | 'settleClock'> {
  const clock = new StoreClock(store, logger);
  return { now: clock.now, settleClock: (wait) => clock.settle(wait) };
}

/**
 * A clock of the caller's, read as the stores keep time: whole ms (a fraction, as
 * `performance.timeOrigin + performance.now()` gives, would make a SQLite row look damaged, and
 * fail every PostgreSQL query). One that gives no time at all is refused when read, naming it.
 */
function wholeMs(now: () => number): () => number {
  return () => {
    const at = now();
    if (!Number.isFinite(at))
      throw new ConfigurationError(`now() must return Unix ms, like Date.now() (got ${String(at)}).`);
    return Math.floor(at);
  };
}
