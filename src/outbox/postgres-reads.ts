/**
 * What a PostgreSQL outbox store reads for its operators and its workers' waits: events, counts,
 * listeners, leases, the next due time, and the server's clock.
 *
 * @module
 */
import { notHeldSql } from '../stores/lease.ts';
import { type PostgresConnection, SERVER_NOW_SQL } from '../stores/postgres.ts';
import { EVENT_COLUMNS, type EventRow, eventFromRow } from './rows.ts';
import {
  type EventLease,
  OUTBOX_STATES,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
} from './store.ts';

/** The reads of a PostgreSQL outbox store, over its connection and table. */
export class PostgresOutboxReads {
  readonly #db: PostgresConnection;
  /** The table, quoted for SQL. */
  readonly #t: string;

  constructor(db: PostgresConnection, quotedTable: string) {
    this.#db = db;
    this.#t = quotedTable;
  }

  readonly #query = <R = EventRow>(what: string, text: string, values: unknown[]) =>
    this.#db.query<R>(what, text, values);

  /** As {@link OutboxStore.leases} says. */
  async leases(listener: string, now: number, limit: number): Promise<EventLease[]> {
    const { rows } = await this.#query<{ event_id: string; lease_token: string; lease_until: string }>(
      'listing leases',
      `SELECT event_id, lease_token, lease_until FROM ${this.#t}
       WHERE listener = $1 AND state = 'pending' AND lease_token IS NOT NULL AND NOT ${notHeldSql('$2')}
       ORDER BY seq LIMIT $3`,
      [listener, now, limit],
    );
    return rows.map((row) => ({
      eventId: row.event_id,
      holder: row.lease_token,
      until: Number(row.lease_until),
    }));
  }

  /** As {@link OutboxStore.clock} says: the server's clock. */
  async clock(): Promise<number> {
    const { rows } = await this.#query<{ now: string }>(
      'reading the clock',
      `SELECT ${SERVER_NOW_SQL} AS now`,
      [],
    );
    return Number(rows[0]?.now);
  }

  /** As {@link OutboxStore.get} says. */
  async get(eventId: string): Promise<OutboxEvent | undefined> {
    const { rows } = await this.#query(
      'reading an event',
      `SELECT ${EVENT_COLUMNS} FROM ${this.#t} WHERE event_id = $1`,
      [eventId],
    );
    return rows[0] ? eventFromRow(rows[0]) : undefined;
  }

  /** As {@link OutboxStore.counts} says. */
  async counts(listener: string): Promise<Record<OutboxState, number>> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as Record<OutboxState, number>;
    const { rows } = await this.#query<{ state: OutboxState; n: string }>(
      'counting events',
      `SELECT state, count(*) AS n FROM ${this.#t} WHERE listener = $1 GROUP BY state`,
      [listener],
    );
    for (const { state, n } of rows) counts[state] = Number(n);
    return counts;
  }

  /** As {@link OutboxStore.listeners} says. */
  async listeners(): Promise<string[]> {
    const { rows } = await this.#query<{ listener: string }>(
      'listing listeners',
      `SELECT DISTINCT listener FROM ${this.#t} ORDER BY listener`,
      [],
    );
    return rows.map((row) => row.listener);
  }

  /** As {@link OutboxStore.list} says. */
  async list(listener: string, state: OutboxState, limit: number, after?: string): Promise<OutboxEvent[]> {
    const { rows } = await this.#query(
      'listing events',
      `SELECT ${EVENT_COLUMNS} FROM ${this.#t} WHERE listener = $1 AND state = $2
         AND seq > coalesce((SELECT seq FROM ${this.#t} WHERE event_id = $4), 0)
       ORDER BY seq LIMIT $3`,
      [listener, state, limit, after ?? null],
    );
    return rows.map(eventFromRow);
  }

  /** As {@link OutboxStore.nextDueAt} says. */
  async nextDueAt(listener: string): Promise<number | undefined> {
    const { rows } = await this.#query<{ due: string | null }>(
      'finding the next due event',
      `SELECT min(next_attempt_at) AS due FROM ${this.#t} WHERE listener = $1 AND state = 'pending'`,
      [listener],
    );
    const due = rows[0]?.due;
    return due === null || due === undefined ? undefined : Number(due);
  }
}
