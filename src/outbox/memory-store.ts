import {
  type AttemptOutcome,
  type ClaimedEvent,
  type ClaimOptions,
  type NewOutboxEvent,
  OUTBOX_STATES,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
} from './store.ts';

interface Row {
  event: OutboxEvent;
  leaseToken?: string | undefined;
  leasedAt?: number | undefined;
  leaseUntil?: number | undefined;
}

/**
 * Whether a pending event may be attempted at `now`. A last attempt (or an enqueue) more than
 * `toleranceMs` (the lease length) later than now means the clock went back: waiting for it to catch
 * up could stall the event for as long as the jump, while an early attempt is harmless (the event ID
 * makes it idempotent). Within the tolerance it is a worker whose clock runs a little behind: it waits,
 * so it does not skip the retry schedule.
 */
export function isDue(event: OutboxEvent, now: number, toleranceMs: number): boolean {
  return event.nextAttemptAt <= now || (event.lastAttemptAt ?? event.enqueuedAt) > now + toleranceMs;
}

/**
 * Whether a lease holds at `now`: until `leaseUntil`, even for a worker whose clock is behind the
 * holder's. Only a lease taken more than its own length "in the future" is free: the clock jumped back.
 */
export function isHeld(leasedAt: number | undefined, leaseUntil: number | undefined, now: number): boolean {
  if (leasedAt === undefined || leaseUntil === undefined) return false;
  return now < leaseUntil && leasedAt - now <= leaseUntil - leasedAt;
}

/**
 * An {@link OutboxStore} in memory: for tests, and for trying the outbox out. Nothing survives the
 * process, so it gives none of the outbox's durability; use the SQLite or PostgreSQL store for that.
 *
 * @group Outbox
 */
export class MemoryOutboxStore implements OutboxStore {
  readonly #rows = new Map<string, Row>();
  #seq = 0;

  async add(event: NewOutboxEvent): Promise<OutboxEvent | undefined> {
    const existing = this.#rows.get(event.eventId);
    if (existing) return existing.event;
    this.#seq += 1;
    const stored: OutboxEvent = {
      ...event,
      state: 'pending',
      seq: this.#seq,
      nextAttemptAt: event.enqueuedAt,
      attempts: 0,
    };
    this.#rows.set(event.eventId, { event: stored });
    return undefined;
  }

  async claim(options: ClaimOptions): Promise<ClaimedEvent[]> {
    const { listener, now, leaseMs, limit, ordered, leaseToken } = options;
    const claimed: ClaimedEvent[] = [];
    for (const row of this.#rows.values()) {
      const { event } = row;
      if (event.listener !== listener || event.state !== 'pending') continue;
      if (event.expiresAt <= now) {
        row.event = { ...event, state: 'expired', finishedAt: now };
        row.leaseToken = undefined;
        continue;
      }
      if (
        claimed.length < limit &&
        isDue(event, now, leaseMs) &&
        !isHeld(row.leasedAt, row.leaseUntil, now)
      ) {
        Object.assign(row, { leaseToken, leasedAt: now, leaseUntil: now + leaseMs });
        claimed.push({ ...event, leaseToken });
      }
      if (ordered) break; // only the oldest pending event may go
    }
    return claimed;
  }

  async complete(
    eventId: string,
    leaseToken: string,
    now: number,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const row = this.#rows.get(eventId);
    if (row?.event.state !== 'pending') return false;
    if (outcome.state !== 'delivered' && row.leaseToken !== leaseToken) return false;
    row.event = {
      ...row.event,
      state: outcome.state,
      attempts: row.event.attempts + 1,
      lastAttemptAt: now,
      lastAnswer: outcome.answer,
      nextAttemptAt: outcome.state === 'pending' ? outcome.nextAttemptAt : row.event.nextAttemptAt,
      finishedAt: outcome.state === 'pending' ? undefined : now,
    };
    Object.assign(row, { leaseToken: undefined, leasedAt: undefined, leaseUntil: undefined });
    return true;
  }

  async release(eventId: string, leaseToken: string): Promise<void> {
    const row = this.#rows.get(eventId);
    if (row?.leaseToken === leaseToken) {
      Object.assign(row, { leaseToken: undefined, leasedAt: undefined, leaseUntil: undefined });
    }
  }

  async get(eventId: string): Promise<OutboxEvent | undefined> {
    return this.#rows.get(eventId)?.event;
  }

  async counts(listener: string): Promise<Record<OutboxState, number>> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as Record<OutboxState, number>;
    for (const { event } of this.#rows.values()) if (event.listener === listener) counts[event.state] += 1;
    return counts;
  }

  async list(listener: string, state: OutboxState, limit: number): Promise<OutboxEvent[]> {
    const found: OutboxEvent[] = [];
    for (const { event } of this.#rows.values()) {
      if (found.length >= limit) break;
      if (event.listener === listener && event.state === state) found.push(event);
    }
    return found;
  }

  async retry(eventId: string, now: number): Promise<boolean> {
    const row = this.#rows.get(eventId);
    if (!row || (row.event.state !== 'dead' && row.event.state !== 'pending') || now >= row.event.expiresAt) {
      return false;
    }
    row.event = { ...row.event, state: 'pending', nextAttemptAt: now, finishedAt: undefined };
    Object.assign(row, { leaseToken: undefined, leasedAt: undefined, leaseUntil: undefined });
    return true;
  }

  async purgeDelivered(listener: string, before: number): Promise<number> {
    let purged = 0;
    for (const [id, { event }] of this.#rows) {
      if (event.listener === listener && event.state === 'delivered' && (event.finishedAt ?? 0) < before) {
        this.#rows.delete(id);
        purged += 1;
      }
    }
    return purged;
  }

  async close(): Promise<void> {}
}
