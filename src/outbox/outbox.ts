import { ConfigurationError, RequestValidationError } from '../core/errors.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { eventIdOrNew } from '../webhooks/event-id.ts';
import { EVENT_RETENTION_MS } from '../webhooks/limits.ts';
import type { WebhookSender } from '../webhooks/sender.ts';
import {
  type DrainOptions,
  type DrainSummary,
  type EnqueueOptions,
  type OutboxAttempt,
  type OutboxReceipt,
  positiveInteger,
  retrySchedule,
  type WebhookOutboxOptions,
} from './options.ts';
import { judge, scheduledDelay } from './outcome.ts';
import type { AttemptOutcome, ClaimedEvent, OutboxEvent, OutboxState, OutboxStore } from './store.ts';

/** Margin kept before the end of the service's idempotency window, for clock skew between us and it. */
const WINDOW_MARGIN_MS = 60 * 60_000;

/** Resolves after `ms`, or at once when `signal` aborts; never keeps a process alive by itself. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A durable outbox in front of a {@link WebhookSender}: {@link WebhookOutbox.enqueue} stores the
 * event (its ID, serialised body and listener) and resolves once the store committed it; delivery
 * ({@link WebhookOutbox.drain}, or {@link WebhookOutbox.start} in the background) sends it with the
 * same event ID on every attempt, across restarts, so the listener runs the automation once: 200 and
 * 409 both mean delivered. 400, 401, 403 and other refusals move the event to `dead` with the answer
 * kept; 429, 5xx and failed connections are retried on `retrySchedule`, never past the service's
 * 7-day idempotency window (the event is then `expired`).
 *
 * Several outboxes (in one process or many, with the SQLite or PostgreSQL store) may drain one
 * store: each claims events under a lease, and a worker that dies hands its events on when its lease
 * runs out. An outbox only delivers events enqueued for its own sender's listener.
 *
 * @example
 * const outbox = new WebhookOutbox({ sender, store: new SqliteOutboxStore({ path: 'outbox.db' }) });
 * outbox.start();
 * await outbox.enqueue({ employee_id: '12345', status: 'terminated' }); // durable once resolved
 *
 * @group Outbox
 */
export class WebhookOutbox {
  /** The listener URL this outbox delivers to. */
  readonly listener: string;
  readonly #sender: WebhookSender;
  readonly #store: OutboxStore;
  readonly #concurrency: number;
  readonly #schedule: readonly number[];
  readonly #longestWait: number;
  readonly #expireAfterMs: number;
  readonly #attemptTimeoutMs: number;
  readonly #leaseMs: number;
  readonly #pollIntervalMs: number;
  readonly #onAttempt: ((report: OutboxAttempt) => void) | undefined;
  readonly #now: () => number;
  readonly #logger: Logger;
  #running: { controller: AbortController; loop: Promise<void> } | undefined;
  #wake: (() => void) | undefined;
  /** Set by enqueue and retry, so one that lands while the loop drains is not slept through. */
  #nudged = false;

  constructor(options: WebhookOutboxOptions) {
    if (!options.sender || !options.store) {
      throw new ConfigurationError('Pass sender (a WebhookSender) and store (where events are kept).');
    }
    this.#sender = options.sender;
    this.#store = options.store;
    this.listener = options.sender.url;
    this.#concurrency = positiveInteger(options.concurrency, 'concurrency', 1);
    this.#schedule = retrySchedule(options.retrySchedule);
    this.#longestWait = Math.max(...this.#schedule);
    this.#expireAfterMs = positiveInteger(
      options.expireAfterMs,
      'expireAfterMs',
      EVENT_RETENTION_MS - WINDOW_MARGIN_MS,
    );
    if (this.#expireAfterMs > EVENT_RETENTION_MS) {
      throw new ConfigurationError(
        `expireAfterMs must be at most 7 days, the service's idempotency window (got ${this.#expireAfterMs}): past it a resend could run the automation twice.`,
      );
    }
    this.#attemptTimeoutMs = positiveInteger(options.attemptTimeoutMs, 'attemptTimeoutMs', 30_000);
    this.#leaseMs = positiveInteger(options.leaseMs, 'leaseMs', 5 * 60_000);
    if (this.#leaseMs <= 2 * this.#attemptTimeoutMs) {
      throw new ConfigurationError(
        `leaseMs (${this.#leaseMs}) must be more than twice attemptTimeoutMs (${this.#attemptTimeoutMs}), so a lease outlives the attempt it covers.`,
      );
    }
    this.#pollIntervalMs = positiveInteger(options.pollIntervalMs, 'pollIntervalMs', 1_000);
    this.#onAttempt = options.onAttempt;
    this.#now = options.now ?? Date.now;
    this.#logger = createLogger(options.logger, options.logLevel);
  }

  /**
   * Stores an event for delivery and resolves once it is durable: from then on it survives a crash
   * and will be delivered once. A payload the sender would refuse (not JSON, over the size limit) and
   * a malformed event ID throw a `RequestValidationError` and store nothing.
   *
   * Enqueueing an event ID that is already stored with the same body is harmless (`duplicate: true`),
   * so a caller that crashed before it knew whether enqueue finished may simply enqueue again; the
   * same ID with another body, or for another listener, is refused: an event ID names one event.
   */
  async enqueue(payload: unknown, options: EnqueueOptions = {}): Promise<OutboxReceipt> {
    const eventId = eventIdOrNew(options.eventId);
    const body = this.#sender.serialize(payload);
    const enqueuedAt = this.#now();
    const existing = await this.#store.add({
      eventId,
      listener: this.listener,
      body,
      enqueuedAt,
      expiresAt: enqueuedAt + this.#expireAfterMs,
    });
    if (existing && (existing.body !== body || existing.listener !== this.listener)) {
      const what =
        existing.listener !== this.listener
          ? `for another listener (${existing.listener})`
          : 'with another body';
      throw new RequestValidationError(
        `eventId ${eventId} is already in the outbox ${what}: an event ID names one event, and the listener would drop the second as a duplicate. Use a new event ID.`,
        'eventId',
      );
    }
    this.#nudge();
    return { eventId, duplicate: existing !== undefined };
  }

  /**
   * Delivers every event that is due now, then resolves (events waiting to retry stay for later).
   * Each event is attempted at most once per call, so a short retry wait (even 0) against a failing
   * listener cannot keep `drain()` from returning. Safe to run in several processes at once on one store.
   */
  async drain(options: DrainOptions = {}): Promise<DrainSummary> {
    const summary: DrainSummary = { attempts: 0, delivered: 0, retried: 0, dead: 0, expired: 0 };
    const signal = options.signal;
    // Events this call attempted that are pending again: each gets one attempt per drain, and is
    // not claimed again, so an event failing at once cannot take every slot from the others.
    const again = new Set<string>();
    while (!signal?.aborted) {
      summary.expired += await this.#store.expire(this.listener, this.#now());
      const claimed = await this.#store.claim({
        listener: this.listener,
        now: this.#now(),
        leaseMs: this.#leaseMs,
        limit: this.#concurrency,
        ordered: this.#concurrency === 1,
        leaseToken: crypto.randomUUID(),
        exclude: [...again],
      });
      if (claimed.length === 0) break;
      const reports = await Promise.all(claimed.map((event) => this.#attempt(event, signal)));
      for (const report of reports) {
        if (report.outcome === 'retry' || report.outcome === 'released') again.add(report.eventId);
        if (report.outcome === 'released') continue;
        summary.attempts += 1;
        if (report.outcome === 'delivered') summary.delivered += 1;
        else if (report.outcome === 'retry') summary.retried += 1;
        else summary[report.outcome] += 1;
      }
    }
    return summary;
  }

  /**
   * Delivers in the background until {@link WebhookOutbox.stop}: drains, then waits for the next
   * enqueue in this process or `pollIntervalMs`. Store errors are logged and retried, never thrown.
   * A second call is a no-op; a call after `stop()`, awaited or not, starts again.
   */
  start(): void {
    const previous = this.#running;
    if (previous && !previous.controller.signal.aborted) return;
    const controller = new AbortController();
    const loop = (async () => {
      await previous?.loop; // a stop() still under way: its loop ends first, one loop at a time
      while (!controller.signal.aborted) {
        this.#nudged = false;
        try {
          await this.drain({ signal: controller.signal });
        } catch (error) {
          this.#logger.error(`webhook outbox: ${(error as Error)?.message ?? error}; trying again`);
        }
        if (this.#nudged) continue;
        const woken = new AbortController();
        this.#wake = () => woken.abort();
        await pause(this.#pollIntervalMs, AbortSignal.any([controller.signal, woken.signal]));
        this.#wake = undefined;
      }
    })();
    this.#running = { controller, loop };
  }

  /**
   * Stops the background delivery, also during a wait. An attempt in flight is abandoned and its
   * event released, due again at once for the next worker: resending it is safe, the listener answers 409.
   */
  async stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    running.controller.abort();
    await running.loop;
    if (this.#running === running) this.#running = undefined; // unless start() came meanwhile
  }

  async #attempt(event: ClaimedEvent, signal: AbortSignal | undefined): Promise<OutboxAttempt> {
    const started = this.#now();
    let result: Parameters<typeof judge>[0];
    try {
      const delivery = await this.#sender.send(event.body, {
        eventId: event.eventId,
        signal,
        timeout: this.#attemptTimeoutMs,
        maxRetries: 0,
      });
      result = { delivery };
    } catch (error) {
      result = { error };
    }
    const at = this.#now();
    const base = {
      eventId: event.eventId,
      attempt: event.attempts + 1,
      durationMs: Math.max(0, at - started),
    };
    if ('error' in result && signal?.aborted) {
      const released = await this.#store.release(event.eventId, event.leaseToken).then(
        () => true,
        (error: unknown) => {
          this.#logger.warn(
            `webhook ${event.eventId}: the claim could not be given up (${(error as Error)?.message ?? error}); it is due again when its lease ends`,
          );
          return false;
        },
      );
      return this.#report({ ...base, outcome: 'released', recorded: released });
    }
    const verdict = judge(result);
    let outcome: AttemptOutcome;
    let nextAttemptAt: number | undefined;
    if (verdict.kind === 'retry') {
      // Retry-After is honoured, but never beyond the longest wait of the schedule: an answer must
      // not be able to push an event out of its window.
      const asked = Math.min(verdict.retryAfterMs ?? 0, this.#longestWait);
      nextAttemptAt = at + Math.max(scheduledDelay(this.#schedule, event.attempts + 1), asked);
      outcome =
        nextAttemptAt < event.expiresAt
          ? { state: 'pending', answer: verdict.answer, nextAttemptAt }
          : { state: 'expired', answer: verdict.answer };
    } else {
      outcome = { state: verdict.kind, answer: verdict.answer };
    }
    const kind = outcome.state === 'pending' ? 'retry' : outcome.state;
    const recorded = await this.#record(event, at, outcome);
    if (recorded === false) {
      this.#logger.warn(`webhook ${event.eventId}: ${kind} not recorded, another worker took the event over`);
    } else if (recorded === undefined) {
      this.#logger.error(
        `webhook ${event.eventId}: ${kind} could not be recorded, the store failing for half a lease; the event is attempted again once its lease ends (a listener that accepted it answers 409, recorded as delivered)`,
      );
    } else if (kind !== 'delivered') {
      this.#logger.info(`webhook ${event.eventId}: ${kind}`, { ...verdict.answer });
    }
    return this.#report({
      ...base,
      outcome: kind,
      answer: verdict.answer,
      nextAttemptAt: kind === 'retry' ? nextAttemptAt : undefined,
      recorded: recorded === true,
    });
  }

  /**
   * Records an attempt's outcome, trying again while the store fails (a database restarting, a
   * lock held past its timeout) for up to half the lease, so that the outcome of a request the
   * listener answered is not lost and the event not held for a whole lease. `undefined`: the store
   * failed throughout. Not cut short by stop(): an outcome is worth the wait.
   */
  async #record(event: ClaimedEvent, at: number, outcome: AttemptOutcome): Promise<boolean | undefined> {
    const giveUpAt = performance.now() + this.#leaseMs / 2;
    for (let wait = 50; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await this.#store.complete(event.eventId, event.leaseToken, at, outcome);
      } catch (error) {
        if (performance.now() + wait > giveUpAt) return undefined;
        this.#logger.warn(
          `webhook ${event.eventId}: recording its outcome failed (${(error as Error)?.message ?? error}); trying again in ${wait} ms`,
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  #report(report: OutboxAttempt): OutboxAttempt {
    try {
      this.#onAttempt?.(report);
    } catch (error) {
      this.#logger.error(`onAttempt threw: ${(error as Error)?.message ?? error}`);
    }
    return report;
  }

  /** How many of this listener's events are in each state. */
  counts(): Promise<Record<OutboxState, number>> {
    return this.#store.counts(this.listener);
  }

  /** Events refused for good, oldest first, each with its last answer (status and the start of the body). */
  async deadLetters(options: { limit?: number } = {}): Promise<OutboxEvent[]> {
    return this.#store.list(this.listener, 'dead', positiveInteger(options?.limit, 'limit', 100));
  }

  /** One stored event, in any state. */
  get(eventId: string): Promise<OutboxEvent | undefined> {
    return this.#store.get(eventId);
  }

  /**
   * Sends a dead (or waiting) event again, at once, with its original event ID. Throws when it is
   * unknown, delivered, or past its window (`expired`): then only a new event, with a new ID, can
   * carry it, and the automation may run a second time.
   */
  async retry(eventId: string): Promise<void> {
    const event = await this.#store.get(eventId);
    if (!event || event.listener !== this.listener || !(await this.#store.retry(eventId, this.#now()))) {
      const why = !event
        ? 'is not in the outbox'
        : event.listener !== this.listener
          ? `belongs to another listener (${event.listener})`
          : event.state === 'delivered'
            ? 'was delivered'
            : 'is past its idempotency window (expired): enqueue it as a new event if the automation should run again';
      throw new RequestValidationError(`Cannot retry event ${eventId}: it ${why}.`, 'eventId');
    }
    this.#nudge();
  }

  #nudge(): void {
    this.#nudged = true;
    this.#wake?.();
  }

  /** Deletes delivered events that finished before `olderThan` (a Date or Unix ms); returns how many. */
  async purgeDelivered(olderThan: Date | number): Promise<number> {
    const before = olderThan instanceof Date ? olderThan.getTime() : olderThan;
    if (!Number.isFinite(before)) {
      throw new ConfigurationError(`olderThan must be a Date or Unix ms (got ${String(olderThan)}).`);
    }
    return this.#store.purgeDelivered(this.listener, before);
  }
}
