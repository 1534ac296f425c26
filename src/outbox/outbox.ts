import { ConfigurationError, RequestValidationError } from '../core/errors/errors.ts';
import type { Hooks } from '../core/hooks.ts';
import { maskedUrl, shownUrl } from '../internal/url.ts';
import { wait } from '../internal/wait.ts';
import { eventIdOrNew } from '../webhooks/event-id.ts';
import { type DeadLettersQuery, deadLettersOf } from './dead-letters.ts';
import { drainListener } from './drain.ts';
import { type ResolvedOutboxOptions, resolveOutboxOptions, type WebhookOutboxOptions } from './options.ts';
import type {
  DrainOptions,
  DrainSummary,
  EnqueueOptions,
  OutboxAttempt,
  OutboxEvents,
  OutboxReceipt,
} from './reports.ts';
import { retryRefusal } from './retry-refusal.ts';
import { FINISHED_STATES, type FinishedState, type OutboxEvent, type OutboxState } from './store.ts';
import { WaitingTeller } from './waiting.ts';

/**
 * A durable outbox in front of a {@link "@idgov/sdk/webhooks".WebhookSender | WebhookSender}: {@link WebhookOutbox.enqueue} stores the
 * event (its ID, serialised body and listener) and resolves once the store committed it; delivery
 * ({@link WebhookOutbox.drain}, or {@link WebhookOutbox.start} in the background) sends it with the
 * same event ID on every attempt, across restarts, so the listener runs the automation once: 200 and
 * 409 both mean delivered. 400, 401, 403 and other refusals move the event to `dead` with the answer
 * kept; 429, 5xx and failed connections are retried on `retrySchedule`, never past the service's
 * 7-day idempotency window (the event is then `expired`).
 *
 * Several outboxes (in one process or many, with the SQLite or PostgreSQL store) may drain one
 * store: each claims events under a lease that a heartbeat renews while an attempt is in flight, so
 * no event is ever sent by two at once, and a worker that dies hands its events on when its lease
 * runs out (15 s by default; at once on the SQLite store, for a process of the same machine). An outbox only delivers events enqueued for its own sender's listener.
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
  /**
   * Typed hooks: `outbox.hooks.on('attempt', (report) => ...)` is told of every attempt from now
   * on, `'drain'` of each drain's progress.
   */
  readonly hooks: Hooks<OutboxEvents>;
  readonly #options: ResolvedOutboxOptions;
  #running: { controller: AbortController; loop: Promise<void> } | undefined;
  #wake: (() => void) | undefined;
  /** Set by enqueue and retry, so one that lands while the loop drains is not slept through. */
  #nudged = false;
  readonly #waiting: WaitingTeller;
  // Names this outbox in its claims' lease tokens.
  readonly #worker = `outbox-${crypto.randomUUID().slice(0, 8)}`;

  constructor(options: WebhookOutboxOptions) {
    this.#options = resolveOutboxOptions(options);
    this.listener = this.#options.sender.url;
    this.#waiting = new WaitingTeller(this.#options, this.listener);
    this.hooks = this.#options.hooks;
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
    const body = this.#options.sender.serialize(payload);
    // Dated by the machine's clock if the store's cannot be read: the event is stored all the same.
    await this.#options.settleClock('moved').catch(() => {});
    const enqueuedAt = this.#options.now();
    const existing = await this.#options.store.add({
      eventId,
      listener: this.listener,
      body,
      enqueuedAt,
      expiresAt: enqueuedAt + this.#options.expireAfterMs,
    });
    if (existing && (existing.body !== body || existing.listener !== this.listener)) {
      const what =
        existing.listener !== this.listener
          ? `for another listener (${shownUrl(existing.listener)})`
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
   * A sender that cannot be used (a private key that does not import) rejects with its
   * `ConfigurationError`, its events left pending and their attempts uncounted.
   */
  drain(options: DrainOptions = {}): Promise<DrainSummary> {
    return this.#drain(options);
  }

  // The drain itself: what `drain()` calls, and the loop of `start()` (not through `drain`, which an
  // instrumentation may wrap: a poll a second would be a span a second).
  #drain(options: DrainOptions): Promise<DrainSummary> {
    return drainListener(this.#options, {
      listener: this.listener,
      worker: this.#worker,
      waiting: this.#waiting,
      signal: options.signal,
      report: (report) => this.#report(report),
      progress: (summary, done) => this.#progress(summary, done),
    });
  }

  #progress(summary: DrainSummary, done: boolean): void {
    this.#options.hooks.emit('drain', () => ({ ...summary, listener: this.listener, done }));
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
          await this.#drain({ signal: controller.signal });
        } catch (error) {
          this.#options.logger.error(`webhook outbox: ${(error as Error)?.message ?? error}; trying again`);
        }
        if (this.#nudged) continue;
        const woken = new AbortController();
        this.#wake = () => woken.abort();
        // A started outbox keeps its process running, as a server's listening socket does, until stop().
        await wait(this.#options.pollIntervalMs, {
          signal: AbortSignal.any([controller.signal, woken.signal]),
        });
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

  #report(report: OutboxAttempt): OutboxAttempt {
    try {
      this.#options.onAttempt?.(report);
    } catch (error) {
      this.#options.logger.error(`onAttempt threw: ${(error as Error)?.message ?? error}`);
    }
    this.#options.hooks.emit('attempt', () => report);
    return report;
  }

  /** How many of this listener's events are in each state. */
  counts(): Promise<Record<OutboxState, number>> {
    return this.#options.store.counts(this.listener);
  }

  /**
   * Events refused for good, oldest first, each with its last answer (status and the start of the
   * body): at most `limit` (default 100), after `after` (the last event ID of the page before).
   */
  deadLetters(options: DeadLettersQuery = {}): Promise<OutboxEvent[]> {
    return deadLettersOf(this.#options.store, this.listener, options);
  }

  /** One stored event, in any state. */
  get(eventId: string): Promise<OutboxEvent | undefined> {
    return this.#options.store.get(eventId);
  }

  /**
   * Sends a dead (or waiting) event again, at once, with its original event ID. Throws when it is
   * unknown, delivered, past its window (`expired`: then only a new event, with a new ID, can carry
   * it, and the automation may run a second time), or has an attempt in flight (wait for it).
   */
  async retry(eventId: string): Promise<void> {
    const { store, now } = this.#options;
    const event = await store.get(eventId);
    if (event && event.listener !== this.listener) {
      throw new RequestValidationError(
        `Cannot retry event ${eventId}: it belongs to another listener (${shownUrl(event.listener)}).`,
        'eventId',
      );
    }
    await this.#options.settleClock();
    const at = now();
    if (!event || !(await store.retry(eventId, at))) {
      const why = retryRefusal(event && (await store.get(eventId)), at);
      throw new RequestValidationError(`Cannot retry event ${eventId}: it ${why}.`, 'eventId');
    }
    this.#nudge();
  }

  #nudge(): void {
    this.#nudged = true;
    this.#wake?.();
  }

  /** Deletes delivered events that finished before `olderThan` (a Date or Unix ms); returns how many. */
  purgeDelivered(olderThan: Date | number): Promise<number> {
    return this.purgeFinished('delivered', olderThan);
  }

  /**
   * Deletes the events in `state` (`delivered`, `dead` or `expired`) that finished before
   * `olderThan` (a Date or Unix ms); returns how many. A dead event past its window can never be
   * sent again: once its cause is known, this is how it leaves the outbox.
   */
  async purgeFinished(state: FinishedState, olderThan: Date | number): Promise<number> {
    if (!FINISHED_STATES.includes(state)) {
      throw new ConfigurationError(
        `state must be ${FINISHED_STATES.join(', ')} (got ${String(state)}): pending events are delivered, retried or expired, never purged.`,
      );
    }
    const before = olderThan instanceof Date ? olderThan.getTime() : olderThan;
    if (!Number.isFinite(before)) {
      throw new ConfigurationError(`olderThan must be a Date or Unix ms (got ${String(olderThan)}).`);
    }
    const { store } = this.#options;
    if (store.purgeFinished) return store.purgeFinished(this.listener, state, before);
    if (state === 'delivered') return store.purgeDelivered(this.listener, before);
    throw new ConfigurationError(
      `This outbox's store cannot purge ${state} events: implement OutboxStore.purgeFinished.`,
    );
  }

  /** What `JSON.stringify(outbox)` shows: its listener, the query's values (a gateway's key) as `***`. */
  toJSON(): { listener: string } {
    return { listener: maskedUrl(this.listener) };
  }

  /** What `console.log(outbox)` shows in Node: what {@link toJSON} does. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `WebhookOutbox ${JSON.stringify(this.toJSON())}`;
  }
}
