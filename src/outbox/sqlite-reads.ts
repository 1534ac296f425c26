/**
 * What an SQLite outbox store reads for its operators and its worker's waits: events, counts,
 * listeners, leases and the next due time, each read with its failures explained.
 *
 * @module
 */
import { notHeldSql } from '../stores/lease.ts';
import type { SqliteFile } from '../stores/sqlite-file.ts';
import {
  EVENT_COLUMNS,
  type EventRow,
  eventFromRow,
  sqliteColumns,
  sqliteWhole,
  unsafeIntegerSql,
} from './rows.ts';
import {
  type EventLease,
  OUTBOX_STATES,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
} from './store.ts';

type Value = string | number | null;

/** The reads of an SQLite outbox store, over its file. */
export class SqliteOutboxReads {
  readonly #file: SqliteFile;

  constructor(file: SqliteFile) {
    this.#file = file;
  }

  /** The rows `sql` selects, read with the file's checks and its failures explained. */
  #all<R>(sql: string, ...values: Value[]): R[] {
    return this.#file.read(() => this.#file.sql(sql).all(...values)) as unknown as R[];
  }

  /** The first row `sql` selects, as {@link SqliteOutboxReads.#all} reads. */
  #get<R>(sql: string, ...values: Value[]): R | undefined {
    return this.#file.read(() => this.#file.sql(sql).get(...values)) as unknown as R | undefined;
  }

  /** As {@link OutboxStore.leases} says. */
  async leases(listener: string, now: number, limit: number): Promise<EventLease[]> {
    const rows = this.#all<{ event_id: string; lease_token: string; lease_until: number }>(
      `SELECT event_id, lease_token, lease_until FROM idgov_webhook_outbox
       WHERE listener = ? AND state = 'pending' AND lease_token IS NOT NULL AND NOT ${notHeldSql('?', '?')}
         AND typeof(lease_until) = 'integer' AND NOT ${unsafeIntegerSql('lease_until')}
       ORDER BY seq LIMIT ?`,
      listener,
      now,
      now,
      limit,
    );
    return rows.map((row) => ({ eventId: row.event_id, holder: row.lease_token, until: row.lease_until }));
  }

  /** As {@link OutboxStore.get} says. */
  async get(eventId: string): Promise<OutboxEvent | undefined> {
    const row = this.#get<EventRow>(
      `SELECT ${sqliteColumns(EVENT_COLUMNS)} FROM idgov_webhook_outbox WHERE event_id = ?`,
      eventId,
    );
    return row ? eventFromRow(row) : undefined;
  }

  /** As {@link OutboxStore.counts} says. */
  async counts(listener: string): Promise<Record<OutboxState, number>> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as Record<OutboxState, number>;
    const rows = this.#all<{ state: OutboxState; n: number }>(
      'SELECT state, count(*) AS n FROM idgov_webhook_outbox WHERE listener = ? GROUP BY state',
      listener,
    );
    for (const { state, n } of rows) counts[state] = n;
    return counts;
  }

  /** As {@link OutboxStore.listeners} says. */
  async listeners(): Promise<string[]> {
    const rows = this.#all<{ listener: string }>(
      'SELECT DISTINCT listener FROM idgov_webhook_outbox ORDER BY listener',
    );
    return rows.map((row) => row.listener);
  }

  /** As {@link OutboxStore.list} says. */
  async list(listener: string, state: OutboxState, limit: number, after?: string): Promise<OutboxEvent[]> {
    const rows = this.#all<EventRow>(
      `SELECT ${sqliteColumns(EVENT_COLUMNS)} FROM idgov_webhook_outbox WHERE listener = ? AND state = ?
         AND seq > coalesce((SELECT seq FROM idgov_webhook_outbox WHERE event_id = ?), 0)
       ORDER BY seq LIMIT ?`,
      listener,
      state,
      after ?? null,
      limit,
    );
    return rows.map(eventFromRow);
  }

  /** As {@link OutboxStore.nextDueAt} says. */
  async nextDueAt(listener: string): Promise<number | undefined> {
    const row = this.#get<{ due: number | string | null }>(
      `SELECT min(${sqliteWhole('next_attempt_at')}) AS due FROM idgov_webhook_outbox WHERE listener = ? AND state = 'pending'`,
      listener,
    );
    // A damaged time (text) is due at once: the drain's claim buries its row.
    return typeof row?.due === 'string' ? 0 : (row?.due ?? undefined);
  }
}
