import { FREE, isHeld, type LeaseFields, renewedUntil, taken } from '../stores/lease.ts';
import { isDue } from './due.ts';
import {
  type AttemptOutcome,
  type ClaimedEvent,
  type ClaimOptions,
  type EventLease,
  type FinishedState,
  type NewOutboxEvent,
  OUTBOX_STATES,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
  type PurgeOptions,
} from './store.ts';
import { countUnrecorded } from './unrecorded-attempt.ts';

interface Row extends LeaseFields {
  event: OutboxEvent;
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
    const exclude = new Set(options.exclude);
    const claimed: ClaimedEvent[] = [];
    for (const row of this.#rows.values()) {
      const { event } = row;
      if (event.listener !== listener || event.state !== 'pending') continue;
      // Past its window, an event is skipped, unless an attempt is still in flight: it is the head then.
      const held = isHeld(row.leasedAt, row.leaseUntil, now);
      if (event.expiresAt <= now && !held) continue;
      if (exclude.has(event.eventId)) {
        if (ordered) break; // the head was attempted: nothing overtakes it
        continue;
      }
      if (claimed.length < limit && event.expiresAt > now && isDue(event, now, leaseMs) && !held) {
        row.event = countUnrecorded(event, row);
        Object.assign(row, taken(leaseToken, now, leaseMs));
        claimed.push({ ...row.event, leaseToken });
      }
      if (ordered) break; // only the oldest pending event may go
    }
    return claimed;
  }

  async expire(listener: string, now: number): Promise<number> {
    let expired = 0;
    for (const row of this.#rows.values()) {
      const { event } = row;
      if (event.listener !== listener || event.state !== 'pending' || event.expiresAt > now) continue;
      if (isHeld(row.leasedAt, row.leaseUntil, now)) continue;
      row.event = { ...countUnrecorded(event, row), state: 'expired', finishedAt: now };
      Object.assign(row, FREE);
      expired += 1;
    }
    return expired;
  }

  async complete(
    eventId: string,
    leaseToken: string,
    now: number,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const row = this.#rows.get(eventId);
    if (!row) return false;
    const delivered = outcome.state === 'delivered';
    if (row.event.state !== 'pending' && !(delivered && row.event.state === 'expired')) return false;
    if (!delivered && row.leaseToken !== leaseToken) return false;
    row.event = {
      ...row.event,
      state: outcome.state,
      // This attempt, or (delivered by a worker whose lease another took over) the attempt of the
      // lease's holder, whose outcome will be refused; one whose lease was freed was counted then.
      attempts: row.event.attempts + (row.leaseToken === undefined ? 0 : 1),
      lastAttemptAt: now,
      lastAnswer: outcome.answer,
      nextAttemptAt: outcome.state === 'pending' ? outcome.nextAttemptAt : row.event.nextAttemptAt,
      finishedAt: outcome.state === 'pending' ? undefined : now,
    };
    Object.assign(row, FREE);
    return true;
  }

  async release(eventId: string, leaseToken: string): Promise<void> {
    const row = this.#rows.get(eventId);
    if (row?.leaseToken === leaseToken) {
      Object.assign(row, FREE);
    }
  }

  async renew(
    leaseToken: string,
    eventIds: readonly string[],
    now: number,
    leaseMs: number,
  ): Promise<string[]> {
    const still: string[] = [];
    for (const eventId of eventIds) {
      const row = this.#rows.get(eventId);
      if (row?.event.state !== 'pending' || row.leaseToken !== leaseToken) continue;
      Object.assign(row, { leasedAt: now, leaseUntil: renewedUntil(row.leaseUntil, now, leaseMs) });
      still.push(eventId);
    }
    return still;
  }

  async leases(listener: string, now: number, limit: number): Promise<EventLease[]> {
    const held: EventLease[] = [];
    for (const { event, leaseToken, leasedAt, leaseUntil } of this.#rows.values()) {
      if (held.length >= limit) break;
      if (event.listener !== listener || event.state !== 'pending' || !leaseToken) continue;
      if (!isHeld(leasedAt, leaseUntil, now)) continue;
      held.push({ eventId: event.eventId, holder: leaseToken, until: leaseUntil as number });
    }
    return held;
  }

  async get(eventId: string): Promise<OutboxEvent | undefined> {
    return this.#rows.get(eventId)?.event;
  }

  async counts(listener: string): Promise<Record<OutboxState, number>> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as Record<OutboxState, number>;
    for (const { event } of this.#rows.values()) if (event.listener === listener) counts[event.state] += 1;
    return counts;
  }

  async listeners(): Promise<string[]> {
    return [...new Set([...this.#rows.values()].map(({ event }) => event.listener))].sort();
  }

  async list(listener: string, state: OutboxState, limit: number, after?: string): Promise<OutboxEvent[]> {
    const found: OutboxEvent[] = [];
    // The map keeps the order events were added in, as the other stores' seq does.
    let passed = after === undefined || !this.#rows.has(after);
    for (const { event } of this.#rows.values()) {
      if (found.length >= limit) break;
      if (!passed) passed = event.eventId === after;
      else if (event.listener === listener && event.state === state) found.push(event);
    }
    return found;
  }

  async nextDueAt(listener: string): Promise<number | undefined> {
    let due: number | undefined;
    for (const { event } of this.#rows.values()) {
      if (event.listener === listener && event.state === 'pending') {
        due = Math.min(due ?? event.nextAttemptAt, event.nextAttemptAt);
      }
    }
    return due;
  }

  async retry(eventId: string, now: number): Promise<boolean> {
    const row = this.#rows.get(eventId);
    if (!row || (row.event.state !== 'dead' && row.event.state !== 'pending') || now >= row.event.expiresAt) {
      return false;
    }
    if (isHeld(row.leasedAt, row.leaseUntil, now)) return false;
    row.event = {
      ...countUnrecorded(row.event, row),
      state: 'pending',
      nextAttemptAt: now,
      finishedAt: undefined,
    };
    Object.assign(row, FREE);
    return true;
  }

  purgeDelivered(listener: string, before: number): Promise<number> {
    return this.purgeFinished(listener, 'delivered', before);
  }

  async purgeFinished(
    listener: string,
    state: FinishedState,
    before: number,
    { windowEndedBy = Number.POSITIVE_INFINITY }: PurgeOptions = {},
  ): Promise<number> {
    let purged = 0;
    for (const [id, { event }] of this.#rows) {
      const ended = event.expiresAt <= windowEndedBy;
      if (event.listener === listener && event.state === state && (event.finishedAt ?? 0) < before && ended) {
        this.#rows.delete(id);
        purged += 1;
      }
    }
    return purged;
  }

  async close(): Promise<void> {}
}
