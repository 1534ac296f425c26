/**
 * The embedded outbox store: one SQLite file through `node:sqlite` (Node 22.13+; no native
 * dependency to install). Import it from `@idgov/sdk/outbox/sqlite`.
 *
 * @module outbox/sqlite
 */

import { ConfigurationError } from '../core/errors/errors.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { unknownOptionProblem } from '../internal/known-options.ts';
import { FREE_SQL, isHeld, notHeldSql, renewedUntilSql } from '../stores/lease.ts';
import { heldHere } from '../stores/local-process.ts';
import { SqliteFile } from '../stores/sqlite-file.ts';
import { dueSql, isDue } from './due.ts';
import { PURGE_BATCH, purgeInBatches } from './purge.ts';
import { EVENT_COLUMNS, type EventRow, eventFromRow, rowProblem, sqliteColumns } from './rows.ts';
import { freeGoneHolders, retryEvent } from './sqlite-leases.ts';
import { SQLITE_OUTBOX_OPTIONS, type SqliteOutboxStoreOptions } from './sqlite-options.ts';
import { SqliteOutboxReads } from './sqlite-reads.ts';
import { MALFORMED, SCHEMA } from './sqlite-schema.ts';
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

// How often a claim looks for leases held by processes of this machine that are gone.
const SWEEP_EVERY_MS = 1_000;

type Row = EventRow & { lease_token: string | null; leased_at: number | null; lease_until: number | null };

/**
 * An {@link OutboxStore} in one SQLite file, for one process or several on one machine.
 *
 * Durability: the file is in WAL mode with `synchronous = FULL`, so every commit (and so every
 * resolved `enqueue`) is flushed to disk before it returns, and survives `kill -9` and power loss
 * alike: `NORMAL` would be too weak for events that must not be missed, and the flush costs little
 * next to an HTTP delivery.
 *
 * Several processes may open the same file at once (on a local disk, not a network share): each
 * claim is one `BEGIN IMMEDIATE` transaction, and a writer waits up to `busyTimeoutMs` for another.
 *
 * @example
 * const store = new SqliteOutboxStore({ path: '/var/lib/partner/outbox.db' });
 *
 * @group Outbox
 */
export class SqliteOutboxStore implements OutboxStore {
  readonly #file: SqliteFile;
  readonly #reads: SqliteOutboxReads;
  readonly #logger: Logger;
  // Leases are stored naming their process (heldHere), so that another process on this machine
  // sees at once that a holder is gone, rather than a lease later: swept this often at most.
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: SqliteOutboxStoreOptions) {
    const unknown = unknownOptionProblem('SqliteOutboxStore', options, SQLITE_OUTBOX_OPTIONS);
    if (unknown) throw new ConfigurationError(unknown);
    this.#logger = createLogger(options?.logger, options?.logLevel);
    this.#file = new SqliteFile({
      path: options?.path,
      busyTimeoutMs: options?.busyTimeoutMs,
      holds: 'outbox',
      schema: SCHEMA,
    });
    this.#reads = new SqliteOutboxReads(this.#file);
  }

  /** Marks a row that is not what the outbox wrote as dead, saying why; it is never sent. */
  #bury(row: Row, problem: string, now: number): void {
    const eventId = String(row.event_id);
    // By seq, the rowid: always an integer, whatever else of the row was damaged.
    this.#file
      .sql(
        `UPDATE idgov_webhook_outbox SET state = 'dead', finished_at = ?, last_error = ?,
         ${FREE_SQL} WHERE seq = ?`,
      )
      .run(now, `not sent: the stored row is not as the outbox wrote it (${problem})`, Number(row.seq));
    this.#logger.warn(
      `webhook outbox: event ${eventId} in ${this.#file.path} is not as the outbox wrote it (${problem}); marked dead, never sent`,
    );
  }

  async add(event: NewOutboxEvent): Promise<OutboxEvent | undefined> {
    const { changes } = this.#file.run(
      `INSERT INTO idgov_webhook_outbox (event_id, listener, body, enqueued_at, expires_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`,
      event.eventId,
      event.listener,
      event.body,
      event.enqueuedAt,
      event.expiresAt,
      event.enqueuedAt,
    );
    return changes === 0 ? this.get(event.eventId) : undefined;
  }

  async claim(options: ClaimOptions): Promise<ClaimedEvent[]> {
    const { listener, now, leaseMs, limit, ordered } = options;
    const leaseToken = heldHere(options.leaseToken);
    const exclude = JSON.stringify(options.exclude ?? []);
    const columns = sqliteColumns(`${EVENT_COLUMNS}, lease_token, leased_at, lease_until`);
    return this.#file.write(() => {
      if (performance.now() - this.#sweptAt >= SWEEP_EVERY_MS) {
        this.#sweptAt = performance.now();
        freeGoneHolders(this.#file, this.#logger);
      }
      const claimed: ClaimedEvent[] = [];
      const lease = this.#file.sql(
        `UPDATE idgov_webhook_outbox SET ${COUNT_UNRECORDED_SQL}, lease_token = ?, leased_at = ?, lease_until = ?
         WHERE event_id = ? RETURNING ${sqliteColumns(EVENT_COLUMNS)}`,
      );
      // Ordered: only the head may go, if it is due, free and not yet attempted by this drain (one past
      // its window with an attempt in flight is still the head: what follows waits for its outcome);
      // a damaged head is buried and the next one looked at. Unordered: the oldest due, free events,
      // and any damaged ones (whose times may be text that no comparison finds due).
      const head = this.#file.sql(
        `SELECT ${columns} FROM idgov_webhook_outbox
           WHERE listener = ? AND state = 'pending' AND (${MALFORMED} OR expires_at > ? OR NOT ${notHeldSql('?', '?')})
           ORDER BY seq LIMIT 1`,
      );
      const batch = this.#file.sql(
        `SELECT ${columns} FROM idgov_webhook_outbox
           WHERE listener = ? AND state = 'pending' AND (${MALFORMED} OR (expires_at > ? AND ${dueSql('?', '?', '?')}
             AND ${notHeldSql('?', '?')} AND event_id NOT IN (SELECT value FROM json_each(?))))
           ORDER BY seq LIMIT ?`,
      );
      const rows = (ordered
        ? head.all(listener, now, now, now)
        : batch.all(listener, now, now, now, leaseMs, now, now, exclude, limit)) as unknown as Row[];
      for (let row = rows.shift(); row; row = rows.shift()) {
        const problem = rowProblem(row);
        if (problem) {
          this.#bury(row, problem, now);
          if (ordered) rows.push(...(head.all(listener, now, now, now) as unknown as Row[]));
          continue;
        }
        const event = eventFromRow(row);
        if (
          event.expiresAt <= now ||
          options.exclude?.includes(event.eventId) ||
          !isDue(event, now, leaseMs) ||
          isHeld(row.leased_at ?? undefined, row.lease_until ?? undefined, now)
        )
          continue;
        const leased = lease.get(leaseToken, now, now + leaseMs, event.eventId) as unknown as Row;
        claimed.push({ ...eventFromRow(leased), leaseToken: options.leaseToken });
      }
      return claimed;
    });
  }

  async complete(
    eventId: string,
    leaseToken: string,
    now: number,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const answer = outcome.answer;
    const { changes } = this.#file.run(
      `UPDATE idgov_webhook_outbox SET state = ?, attempts = attempts + CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END, last_attempt_at = ?,
         last_status = ?, last_body = ?, last_error = ?, next_attempt_at = ?, finished_at = ?,
         ${FREE_SQL}
       WHERE event_id = ? AND (state = 'pending' OR (? = 'delivered' AND state = 'expired'))
         AND (? = 'delivered' OR lease_token = ?)`,
      outcome.state,
      now,
      answer.status ?? null,
      answer.body ?? null,
      answer.error ?? null,
      outcome.state === 'pending' ? outcome.nextAttemptAt : now,
      outcome.state === 'pending' ? null : now,
      eventId,
      outcome.state,
      outcome.state,
      heldHere(leaseToken),
    );
    return Number(changes) > 0;
  }

  async expire(listener: string, now: number): Promise<number> {
    const { changes } = this.#file.run(
      `UPDATE idgov_webhook_outbox SET state = 'expired', finished_at = ?, ${COUNT_UNRECORDED_SQL}, ${FREE_SQL}
       WHERE listener = ? AND state = 'pending' AND expires_at <= ? AND ${notHeldSql('?', '?')}`,
      now,
      listener,
      now,
      now,
      now,
    );
    return Number(changes);
  }

  async release(eventId: string, leaseToken: string): Promise<void> {
    this.#file.run(
      `UPDATE idgov_webhook_outbox SET ${FREE_SQL}
       WHERE event_id = ? AND lease_token = ?`,
      eventId,
      heldHere(leaseToken),
    );
  }

  async renew(
    leaseToken: string,
    eventIds: readonly string[],
    now: number,
    leaseMs: number,
  ): Promise<string[]> {
    const rows = this.#file.write(
      () =>
        this.#file
          .sql(
            `UPDATE idgov_webhook_outbox SET leased_at = ?1, lease_until = ${renewedUntilSql('?2', '?3')}
             WHERE lease_token = ?4 AND state = 'pending' AND event_id IN (SELECT value FROM json_each(?5))
             RETURNING event_id`,
          )
          .all(now, now + leaseMs, leaseMs, heldHere(leaseToken), JSON.stringify(eventIds)) as Array<{
          event_id: string;
        }>,
    );
    return rows.map((row) => row.event_id);
  }

  leases(listener: string, now: number, limit: number): Promise<EventLease[]> {
    return this.#reads.leases(listener, now, limit);
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
    return this.#file.write(() => retryEvent(this.#file, this.#logger, eventId, now));
  }

  purgeDelivered(listener: string, before: number): Promise<number> {
    return this.purgeFinished(listener, 'delivered', before);
  }

  purgeFinished(
    listener: string,
    state: FinishedState,
    before: number,
    options: PurgeOptions = {},
  ): Promise<number> {
    const purge =
      this.#file.sql(`DELETE FROM idgov_webhook_outbox WHERE seq IN (SELECT seq FROM idgov_webhook_outbox
        WHERE listener = ? AND state = ? AND seq > ? AND finished_at < ? AND (? IS NULL OR expires_at <= ?)
        ORDER BY seq LIMIT ?) RETURNING seq`);
    const ended = options.windowEndedBy ?? null;
    const batch = async (after: number) =>
      this.#file.write(() =>
        purge.all(listener, state, after, before, ended, ended, PURGE_BATCH).map((row) => Number(row.seq)),
      );
    return purgeInBatches(batch, options, true);
  }

  async close(): Promise<void> {
    this.#file.close();
  }
}

export type { SqliteOutboxStoreOptions } from './sqlite-options.ts';
