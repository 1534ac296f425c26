/**
 * The contract between {@link WebhookOutbox} and where its events live. Three stores implement it:
 * in memory, SQLite and PostgreSQL; `test/outbox/outbox-stores.test.ts` runs the same checks on each.
 * Times are Unix milliseconds from the outbox's clock; stores never read a clock of their own.
 *
 * @module
 */

/**
 * Where an event stands: `pending` (to be delivered, possibly waiting to retry), `delivered` (the
 * listener answered 200 or 409), `dead` (refused for good, e.g. 400, 401, 403: see its last answer),
 * `expired` (not delivered within the service's idempotency window; never sent again).
 *
 * @group Outbox
 */
export type OutboxState = 'pending' | 'delivered' | 'dead' | 'expired';

/** Every state, in display order. */
export const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'delivered', 'dead', 'expired'];

/**
 * The states an event ends in, which purging deletes: a `dead` event past its window can never be
 * sent again, so purging is how it leaves the outbox once its cause is known.
 *
 * @group Outbox
 */
export type FinishedState = Exclude<OutboxState, 'pending'>;

/** Every state an event ends in. */
export const FINISHED_STATES: readonly FinishedState[] = ['delivered', 'dead', 'expired'];

/**
 * The last answer of an event's listener, kept for operators: the status and the start of the body
 * (never a request header, so never a secret), or the error when there was no answer.
 *
 * @group Outbox
 */
export interface OutboxAnswer {
  /** The HTTP status, when the listener answered. */
  readonly status?: number | undefined;
  /** The start of the answer's body (at most 1,000 characters). */
  readonly body?: string | undefined;
  /** The error when there was no usable answer (connection refused, timed out), or the reason of a state. */
  readonly error?: string | undefined;
}

/**
 * One stored event.
 *
 * @group Outbox
 */
export interface OutboxEvent {
  /** The event ID, fixed at enqueue and sent with every attempt. */
  readonly eventId: string;
  /** The listener URL it goes to. */
  readonly listener: string;
  /** The serialised JSON body, exactly the bytes signed and sent. */
  readonly body: string;
  /** Where it stands. */
  readonly state: OutboxState;
  /** Position in enqueue order (higher is later). */
  readonly seq: number;
  /** When it was enqueued. */
  readonly enqueuedAt: number;
  /** After this instant it is never sent (the end of the idempotency window, with a margin). */
  readonly expiresAt: number;
  /** When a pending event is next due. */
  readonly nextAttemptAt: number;
  /**
   * Attempts made so far, with one whose worker stopped before it recorded an outcome (killed, or
   * cut off from the store): counted when its lease was taken over or freed, since the listener may
   * have received it, its `lastAnswer.error` saying so.
   */
  readonly attempts: number;
  /** When the last attempt ended. */
  readonly lastAttemptAt?: number | undefined;
  /** The last answer, if any attempt was made. */
  readonly lastAnswer?: OutboxAnswer | undefined;
  /** When it left `pending` (delivered, dead or expired). */
  readonly finishedAt?: number | undefined;
  /**
   * How its stored row is not what the outbox wrote (a database edited by hand, or damaged), when
   * it is not: such an event is never sent, and a drain marks it dead.
   */
  readonly damaged?: string | undefined;
}

/**
 * An event as {@link OutboxStore.add} stores it.
 *
 * @group Outbox
 */
export type NewOutboxEvent = Pick<OutboxEvent, 'eventId' | 'listener' | 'body' | 'enqueuedAt' | 'expiresAt'>;

/**
 * A claimed event: held by one worker until `leaseUntil` or until its outcome is recorded.
 *
 * @group Outbox
 */
export interface ClaimedEvent extends OutboxEvent {
  /** Proves the claim when the outcome is recorded; a later claim by another worker replaces it. */
  readonly leaseToken: string;
}

/**
 * What {@link OutboxStore.claim} takes.
 *
 * @group Outbox
 */
export interface ClaimOptions {
  /** Only events of this listener. */
  readonly listener: string;
  /**
   * Now. An event is due when `nextAttemptAt <= now`, or when its last attempt is more than `leaseMs`
   * after now (the clock went back). A lease holds while `now < leaseUntil`, for a worker whose clock
   * is a little behind too, unless it was taken more than its length after now (the clock went back).
   */
  readonly now: number;
  /** How long the claim holds; after it, another worker may claim the event. */
  readonly leaseMs: number;
  /** Most events to claim. */
  readonly limit: number;
  /**
   * `true`: claim only the oldest pending event of the listener, and only if it is due and not held,
   * so events go out in enqueue order. `false`: any due events, oldest first.
   */
  readonly ordered: boolean;
  /** A fresh token for this claim. */
  readonly leaseToken: string;
  /**
   * Event IDs not to claim: those this drain already attempted, so that an event failing at once
   * cannot take every slot from events due since the drain began. Ordered, a head in this list
   * means nothing is claimed (the next event must not overtake it).
   */
  readonly exclude?: readonly string[] | undefined;
}

/**
 * A live lease on a pending event: who holds it, and until when.
 *
 * @group Outbox
 */
export interface EventLease {
  readonly eventId: string;
  /** The lease token of the claim that holds it (with its process, on the SQLite store). */
  readonly holder: string;
  /** When it runs out unless renewed, in Unix ms. */
  readonly until: number;
}

/**
 * The outcome of one attempt, as {@link OutboxStore.complete} records it.
 *
 * @group Outbox
 */
export type AttemptOutcome =
  | { readonly state: 'delivered' | 'dead' | 'expired'; readonly answer: OutboxAnswer }
  | {
      readonly state: 'pending';
      readonly answer: OutboxAnswer;
      /** When to try again. */
      readonly nextAttemptAt: number;
    };

/**
 * Options of {@link OutboxStore.purgeFinished}.
 *
 * @group Outbox
 */
export interface PurgeOptions {
  /** Stops the purge between two batches: what was deleted stays deleted. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Only events whose window (`expiresAt`) ended by this time: a dead event `retry` could still
   * send is kept, though it died before `before` (it may have died a moment ago by a worker's
   * clock that is behind).
   */
  readonly windowEndedBy?: number | undefined;
}

/**
 * What the outbox needs from storage. Every write resolves only once it is durable (committed).
 * Implement it for another database by following the in-memory store, and run the contract tests.
 *
 * @group Outbox
 */
export interface OutboxStore {
  /**
   * Stores a new pending event. If the event ID is already stored, stores nothing and returns the
   * stored event instead, so the caller can tell a repeated enqueue from a clash.
   */
  add(event: NewOutboxEvent): Promise<OutboxEvent | undefined>;
  /**
   * Claims due, unexpired events that no one holds (or whose lease ran out: the attempt of that lease,
   * never recorded, is counted, as {@link OutboxEvent.attempts} says). A row that is not what
   * the outbox wrote (a body that is not text, a time that is not a number) is never claimed: it is
   * marked `dead`, its `lastAnswer.error` saying why.
   */
  claim(options: ClaimOptions): Promise<ClaimedEvent[]>;
  /**
   * Marks pending events of the listener past `expiresAt` as `expired`, except those held by a live
   * lease (an attempt may be in flight: its outcome decides), counting the attempt of a lease that
   * ran out; returns how many it marked.
   */
  expire(listener: string, now: number): Promise<number>;
  /**
   * Records an attempt's outcome and counts an attempt, and releases the lease. The attempt
   * counted is the lease's: the caller's, or, for a `delivered` from a worker whose lease another
   * took over (which counted the caller's), the new holder's, whose outcome will be refused. None
   * when no lease is held (the one that was, freed, was counted then). Returns false, and
   * changes nothing, when the event is no longer pending or the lease was taken over, except that
   * `delivered` is recorded whenever the event is pending or `expired`: the listener accepted it,
   * whoever holds the lease and whatever was decided meanwhile.
   */
  complete(eventId: string, leaseToken: string, now: number, outcome: AttemptOutcome): Promise<boolean>;
  /** Gives up a claim without an attempt (the outbox stopped first): the event is due again at once. */
  release(eventId: string, leaseToken: string): Promise<void>;
  /**
   * Renews, for `leaseMs` from `now`, the leases `leaseToken` still holds on `eventIds` (pending
   * events): the heartbeat of attempts in flight. Resolves with the IDs still held; one missing was
   * taken over by another worker (its lease had run out) or is no longer pending.
   */
  renew(leaseToken: string, eventIds: readonly string[], now: number, leaseMs: number): Promise<string[]>;
  /**
   * The live leases on pending events of the listener at `now`, oldest event first, at most
   * `limit`: what a worker waits for, and who holds it. Optional: an outbox without it waits
   * without saying for whom.
   */
  leases?(listener: string, now: number, limit: number): Promise<EventLease[]>;
  /**
   * The store's own clock, in Unix ms: for a store that workers on several machines share, whose
   * leases must be judged by one clock. Optional: without it, each worker's clock is taken. An
   * outbox on its default clock keeps time by it, read once a minute.
   */
  clock?(): Promise<number>;
  /** One event, any state. */
  get(eventId: string): Promise<OutboxEvent | undefined>;
  /** How many events of the listener are in each state. */
  counts(listener: string): Promise<Record<OutboxState, number>>;
  /**
   * Events of the listener in `state`, oldest first; with `after`, those enqueued after that event
   * (an event ID a page ended on, whatever its state now), or from the first when it is gone: the
   * next page, in constant work a page.
   */
  list(listener: string, state: OutboxState, limit: number, after?: string): Promise<OutboxEvent[]>;
  /**
   * The earliest `nextAttemptAt` of the listener's pending events, or undefined when none is
   * pending: when the next attempt is due. Optional: without it, `idgov outbox status` reads it
   * from the first thousand pending events.
   */
  nextDueAt?(listener: string): Promise<number | undefined>;
  /**
   * The listener URLs that have events, in order: what `idgov outbox` reports on. Optional: a store
   * without it is asked of one listener at a time.
   */
  listeners?(): Promise<string[]>;
  /**
   * Makes a `dead` or `pending` event due now, with no lease (counting the attempt of one that ran
   * out). Returns false when there is no such
   * event, or it is delivered or expired, or `now` is past its `expiresAt`, or a live lease holds it
   * (an attempt is in flight: freeing it would let a second worker send it at once).
   */
  retry(eventId: string, now: number): Promise<boolean>;
  /** Deletes delivered events of the listener that finished before `before`; returns how many. */
  purgeDelivered(listener: string, before: number): Promise<number>;
  /**
   * Deletes the listener's events in `state` that finished before `before`; returns how many. The
   * SDK's stores delete a batch a transaction, so that a large purge never holds up the outbox's
   * own writes, and stop between two batches once `options.signal` aborts (the count says how far
   * they got). Optional: a store without it can purge delivered events only (`purgeDelivered`).
   */
  purgeFinished?(
    listener: string,
    state: FinishedState,
    before: number,
    options?: PurgeOptions,
  ): Promise<number>;
  /** Releases the store's resources (the database connection or pool it opened). */
  close(): Promise<void>;
}
