/**
 * The outbox store for many workers: one PostgreSQL table, drained safely by several processes on
 * several machines. Import it from `@idgov/sdk/outbox/postgres`; it needs the `pg` package.
 *
 * @module outbox/postgres
 */
import { FREE_SQL, notHeldSql, renewedUntilSql } from '../stores/lease.ts';
import { heldHere } from '../stores/local-process.ts';
import {
  checkedTable,
  indexName,
  type PgQueryable,
  PostgresConnection,
  type PostgresStoreOptions,
  quotedName,
} from '../stores/postgres.ts';
import { migrateLocked } from '../stores/postgres-migrate.ts';
import { dueSql } from './due.ts';
import { PostgresOutboxReads } from './postgres-reads.ts';
import { DEFAULT_TABLE, LONGEST_INDEX_SUFFIX, postgresOutboxSchema } from './postgres-schema.ts';
import { PURGE_BATCH, purgeInBatches } from './purge.ts';
import { EVENT_COLUMNS, type EventRow, eventFromRow } from './rows.ts';
import type {
  AttemptOutcome,
  ClaimedEvent,
  ClaimOptions,
  EventLease,
  FinishedState,
  NewOutboxEvent,
  OutboxEvent,
  OutboxState,
  OutboxStore,
  PurgeOptions,
} from './store.ts';
import { COUNT_UNRECORDED_SQL } from './unrecorded-attempt.ts';

/**
 * Options of {@link PostgresOutboxStore}: a `pool`, or a `connectionString` for a pool of its own
 * (at most 4 connections unless `maxConnections` says), and its `table`.
 *
 * @group Outbox
 */
export type PostgresOutboxStoreOptions = PostgresStoreOptions;

/**
 * An {@link OutboxStore} in a PostgreSQL table, for many workers on many machines.
 *
 * Every write is one committed statement before its promise resolves. Workers claim events with
 * `FOR UPDATE SKIP LOCKED` under a lease: two workers never claim one event while its lease holds,
 * and a worker that dies hands its events on once the lease runs out (15 s by default, renewed by a
 * heartbeat while an attempt is in flight). An outbox on its default clock keeps the server's time
 * ({@link PostgresOutboxStore.clock}), so that workers whose machines' clocks disagree agree on leases.
 *
 * @example
 * const store = new PostgresOutboxStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate(); // or run postgresOutboxSchema() with your migration tool
 *
 * @group Outbox
 */
export class PostgresOutboxStore implements OutboxStore {
  /** The table the events live in. */
  readonly table: string;
  /** {@link PostgresOutboxStore.table}, quoted for SQL. */
  readonly #t: string;
  readonly #db: PostgresConnection;
  readonly #reads: PostgresOutboxReads;

  constructor(options: PostgresOutboxStoreOptions) {
    this.table = checkedTable(options?.table ?? DEFAULT_TABLE, LONGEST_INDEX_SUFFIX);
    this.#t = quotedName(this.table);
    this.#db = new PostgresConnection(options, {
      store: 'PostgresOutboxStore',
      table: this.table,
      schemaSql: 'postgresOutboxSchema()',
      maxConnections: 4,
    });
    this.#reads = new PostgresOutboxReads(this.#db, this.#t);
  }

  readonly #query = <R = EventRow>(what: string, text: string, values: unknown[]) =>
    this.#db.query<R>(what, text, values);

  /**
   * Creates the table and its indexes if missing ({@link postgresOutboxSchema}). Safe to run from
   * every worker at start, while others deliver: it changes nothing once the table is there, and an
   * advisory lock keeps first creations from racing.
   */
  async migrate(): Promise<void> {
    await migrateLocked(this.#db, {
      lockKey: this.table,
      relations: [this.#t, indexName(this.table, '_queue'), indexName(this.table, '_expiry')],
      sql: postgresOutboxSchema(this.table),
    });
  }

  async add(event: NewOutboxEvent): Promise<OutboxEvent | undefined> {
    const { rowCount } = await this.#query(
      'storing an event',
      `INSERT INTO ${this.#t} (event_id, listener, body, enqueued_at, expires_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $4) ON CONFLICT (event_id) DO NOTHING`,
      [event.eventId, event.listener, event.body, event.enqueuedAt, event.expiresAt],
    );
    return rowCount === 0 ? this.get(event.eventId) : undefined;
  }

  async claim(options: ClaimOptions): Promise<ClaimedEvent[]> {
    const { listener, now, leaseMs, limit, ordered, leaseToken } = options;
    const t = this.#t;
    const ready = `state = 'pending' AND expires_at > $2 AND ${dueSql('$2', '$5')} AND ${notHeldSql('$2')}
      AND event_id <> ALL($6::text[])`;
    // Ordered: the head, found without SKIP LOCKED (skipping a locked head would send the next event
    // first), and past its window while an attempt is in flight (what follows waits for its outcome);
    // the UPDATE then waits for the row and re-checks it. Unordered: any free due events.
    const target = ordered
      ? `seq = (SELECT min(seq) FROM ${t} WHERE listener = $1 AND state = 'pending'
                  AND (expires_at > $2 OR NOT ${notHeldSql('$2')})) AND ${ready}`
      : `seq IN (SELECT seq FROM ${t} WHERE listener = $1 AND ${ready} ORDER BY seq LIMIT $7 FOR UPDATE SKIP LOCKED)`;
    const exclude = [...(options.exclude ?? [])];
    const { rows } = await this.#query(
      'claiming events',
      `UPDATE ${t} SET ${COUNT_UNRECORDED_SQL}, lease_token = $3, leased_at = $2, lease_until = $4 WHERE ${target}
       RETURNING ${EVENT_COLUMNS}`,
      ordered
        ? [listener, now, heldHere(leaseToken), now + leaseMs, leaseMs, exclude]
        : [listener, now, heldHere(leaseToken), now + leaseMs, leaseMs, exclude, limit],
    );
    return rows.map((row) => ({ ...eventFromRow(row), leaseToken })).sort((a, b) => a.seq - b.seq);
  }

  async complete(
    eventId: string,
    leaseToken: string,
    now: number,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const { answer } = outcome;
    const { rowCount } = await this.#query(
      'recording an outcome',
      `UPDATE ${this.#t} SET state = $1, attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, last_attempt_at = $2,
         last_status = $3, last_body = $4, last_error = $5, next_attempt_at = $6, finished_at = $7,
         ${FREE_SQL}
       WHERE event_id = $8 AND (state = 'pending' OR ($1 = 'delivered' AND state = 'expired'))
         AND ($1 = 'delivered' OR lease_token = $9)`,
      [
        outcome.state,
        now,
        answer.status ?? null,
        answer.body ?? null,
        answer.error ?? null,
        outcome.state === 'pending' ? outcome.nextAttemptAt : now,
        outcome.state === 'pending' ? null : now,
        eventId,
        heldHere(leaseToken),
      ],
    );
    return rowCount > 0;
  }

  async expire(listener: string, now: number): Promise<number> {
    // SKIP LOCKED: rows another worker is expiring or claiming right now are its business.
    const { rowCount } = await this.#query(
      'expiring events',
      `UPDATE ${this.#t} SET state = 'expired', finished_at = $2, ${COUNT_UNRECORDED_SQL}, ${FREE_SQL}
       WHERE seq IN (SELECT seq FROM ${this.#t} WHERE listener = $1 AND state = 'pending' AND expires_at <= $2
                       AND ${notHeldSql('$2')} FOR UPDATE SKIP LOCKED)`,
      [listener, now],
    );
    return rowCount;
  }

  async release(eventId: string, leaseToken: string): Promise<void> {
    await this.#query(
      'releasing an event',
      `UPDATE ${this.#t} SET ${FREE_SQL}
       WHERE event_id = $1 AND lease_token = $2`,
      [eventId, heldHere(leaseToken)],
    );
  }

  async renew(
    leaseToken: string,
    eventIds: readonly string[],
    now: number,
    leaseMs: number,
  ): Promise<string[]> {
    const { rows } = await this.#query<{ event_id: string }>(
      'renewing leases',
      `UPDATE ${this.#t} SET leased_at = $2, lease_until = ${renewedUntilSql('$3::bigint', '$5::bigint')}
       WHERE lease_token = $1 AND state = 'pending' AND event_id = ANY($4::text[]) RETURNING event_id`,
      [heldHere(leaseToken), now, now + leaseMs, [...eventIds], leaseMs],
    );
    return rows.map((row) => row.event_id);
  }

  leases(listener: string, now: number, limit: number): Promise<EventLease[]> {
    return this.#reads.leases(listener, now, limit);
  }

  clock(): Promise<number> {
    return this.#reads.clock();
  }

  get(eventId: string): Promise<OutboxEvent | undefined> {
    return this.#reads.get(eventId);
  }

  counts(listener: string): Promise<Record<OutboxState, number>> {
    return this.#reads.counts(listener);
  }

  listeners(): Promise<string[]> {
    return this.#reads.listeners();
  }

  list(listener: string, state: OutboxState, limit: number, after?: string): Promise<OutboxEvent[]> {
    return this.#reads.list(listener, state, limit, after);
  }

  nextDueAt(listener: string): Promise<number | undefined> {
    return this.#reads.nextDueAt(listener);
  }

  async retry(eventId: string, now: number): Promise<boolean> {
    const { rowCount } = await this.#query(
      'retrying an event',
      `UPDATE ${this.#t} SET state = 'pending', next_attempt_at = $2, finished_at = NULL,
         ${COUNT_UNRECORDED_SQL}, ${FREE_SQL}
       WHERE event_id = $1 AND state IN ('dead', 'pending') AND expires_at > $2 AND ${notHeldSql('$2')}`,
      [eventId, now],
    );
    return rowCount > 0;
  }

  purgeDelivered(listener: string, before: number): Promise<number> {
    return this.purgeFinished(listener, 'delivered', before);
  }

  purgeFinished(
    listener: string,
    state: FinishedState,
    before: number,
    opts: PurgeOptions = {},
  ): Promise<number> {
    // A batch a statement: no transaction holds a million rows' locks and WAL until it ends.
    const batch = async (after: number) => {
      const { rows } = await this.#query<{ seq: string }>(
        `purging ${state} events`,
        `DELETE FROM ${this.#t} WHERE seq IN (SELECT seq FROM ${this.#t}
            WHERE listener = $1 AND state = $2 AND seq > $3 AND finished_at < $4
              AND ($6::bigint IS NULL OR expires_at <= $6) ORDER BY seq LIMIT $5) RETURNING seq`,
        [listener, state, after, before, PURGE_BATCH, opts.windowEndedBy ?? null],
      );
      return rows.map((row) => Number(row.seq));
    };
    return purgeInBatches(batch, opts, false);
  }

  /** Ends the pool the store opened from `connectionString` (a second call does nothing); a pool passed in is left to you. */
  async close(): Promise<void> {
    await this.#db.close();
  }
}

export { postgresOutboxSchema } from './postgres-schema.ts';
export type { PgQueryable, PostgresStoreOptions };
