/**
 * The task copy in PostgreSQL, for any number of workers on any number of machines. Import it from
 * `@idgov/sdk/sync/postgres`; it needs the `pg` package.
 *
 * @module sync/postgres
 */

import { ConfigurationError } from '../../core/errors/errors.ts';
import { isoTime } from '../../internal/time.ts';
import { FREE_SQL, notHeldSql } from '../../stores/lease.ts';
import { type PgQueryable, PostgresConnection, type PostgresStoreOptions } from '../../stores/postgres.ts';
import { migrateLocked } from '../../stores/postgres-migrate.ts';
import {
  type CopiedTask,
  type CopyQuery,
  type CopyReader,
  type CopyRecord,
  type ReadBatch,
  readRecords,
  readTasks,
} from '../copy-reader.ts';
import type {
  CommitCounts,
  CopyIdentity,
  CopyState,
  HeldLease,
  PageCommit,
  PageCommitResult,
  RefreshBatch,
  RunEnd,
  SyncLease,
  SyncRun,
  SyncStore,
  SyncWindow,
  SyncWindowPlan,
} from '../store.ts';
import { endLeasesSql, heldLeasesSql, renewLeasesSql } from './leases.ts';
import { readBatch } from './read.ts';
import { counted, NOW, type PgQuery, tasksParameter, UPSERT_COUNTS, upsertTasksSql } from './rows.ts';
import { beginRun, openCopy, unfinishedRun } from './runs.ts';
import {
  addedColumns,
  DEFAULT_SYNC_PREFIX,
  postgresSyncSchema,
  type SyncTables,
  syncRelations,
  syncTables,
} from './schema.ts';
import { claimWindow, commitPage, splitLargest } from './windows.ts';

/**
 * Options of {@link PostgresSyncStore}: a `pool`, or a `connectionString` for a pool of its own
 * (at most 10 connections unless `maxConnections` says: give it the sync's `concurrency` or more),
 * and the prefix of its tables (`table`, default `idgov`).
 *
 * @group Task sync
 */
export type PostgresSyncStoreOptions = PostgresStoreOptions;

const OPEN_UNSEEN = (run: string) =>
  `state = 'TASK_STATE_OPEN' AND deleted_at IS NULL AND seen_run <> ${run}`;

/**
 * A task copy in PostgreSQL that any number of workers sync at once: run the same `TaskSync` (or
 * `idgov sync --postgres URL`) in as many processes, on as many machines, as you like. Workers
 * claim windows of creation time with `FOR UPDATE SKIP LOCKED` under leases timed by the server's
 * clock; an idle worker splits the window with the most work left; a worker that dies hands its
 * window on, from its last checkpoint, once its lease runs out; and one worker ends each run, once
 * no work of it is left. Every page commits with its window's progress in a single statement.
 *
 * @example
 * const store = new PostgresSyncStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate(); // or run postgresSyncSchema() with your migration tool
 * const sync = new TaskSync({ client, store, concurrency: 8 });
 * await sync.run();
 *
 * @group Task sync
 */
export class PostgresSyncStore implements SyncStore, CopyReader {
  /** The prefix of the copy's tables (`idgov`: `idgov_tasks`, `idgov_expanded`, ...). */
  readonly table: string;
  readonly #t: SyncTables;
  readonly #db: PostgresConnection;

  constructor(options: PostgresSyncStoreOptions) {
    if (!options || typeof options !== 'object') {
      throw new ConfigurationError('Pass { connectionString } or { pool } to PostgresSyncStore.');
    }
    this.#t = syncTables(options.table ?? DEFAULT_SYNC_PREFIX);
    this.table = this.#t.prefix;
    this.#db = new PostgresConnection(options, {
      store: 'PostgresSyncStore',
      table: `${this.table}_tasks`,
      schemaSql: 'postgresSyncSchema()',
      maxConnections: 10,
    });
  }

  readonly #query: PgQuery = (what, text, values) => this.#db.query(what, text, values);

  /**
   * Creates the tables and their indexes if missing ({@link postgresSyncSchema}). Safe to run from
   * every worker at start, while others sync: it changes nothing once the tables are there, and an
   * advisory lock keeps first creations from racing.
   */
  async migrate(): Promise<void> {
    const t = this.#t;
    await migrateLocked(this.#db, {
      lockKey: `idgov sync ${t.prefix}`,
      relations: syncRelations(t),
      columns: addedColumns(t),
      sql: postgresSyncSchema(t.prefix),
    });
  }

  async open(identity: CopyIdentity): Promise<CopyState> {
    return openCopy(this.#query, this.#t, identity);
  }

  async unfinishedRun(): Promise<SyncRun | undefined> {
    return unfinishedRun(this.#query, this.#t);
  }

  async beginRun(
    kind: SyncRun['kind'],
    startedAt: number,
    windows: readonly SyncWindowPlan[],
  ): Promise<SyncRun> {
    return beginRun(this.#query, this.#t, kind, startedAt, windows);
  }

  async claimWindow(run: SyncRun, lease: SyncLease): Promise<SyncWindow | undefined> {
    return claimWindow(this.#query, this.#t, run, lease);
  }

  async splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number },
  ): Promise<boolean> {
    return splitLargest(this.#query, this.#t, run, limits);
  }

  async commitPage(
    run: SyncRun,
    window: SyncWindow,
    page: PageCommit,
    lease: SyncLease,
  ): Promise<PageCommitResult> {
    return commitPage(this.#query, this.#t, run, window, page, lease);
  }

  async claimOpenTasks(run: SyncRun, lease: SyncLease, limit: number): Promise<string[]> {
    const t = this.#t;
    const { rows } = await this.#query<{ id: string }>(
      'claiming open tasks',
      `UPDATE ${t.tasks} SET lease_token = $2, leased_at = ${NOW}, lease_until = ${NOW} + $3
       WHERE id IN (SELECT id FROM ${t.tasks} WHERE ${OPEN_UNSEEN('$1')} AND ${notHeldSql(NOW)}
                      AND NOT EXISTS (SELECT 1 FROM ${t.windows} WHERE run_id = $1 AND state <> 'done')
                      AND EXISTS (SELECT 1 FROM ${t.runs} WHERE id = $1 AND finished_at IS NULL)
                    ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [run.id, lease.holder, lease.ms, limit],
    );
    return rows.map((row) => row.id).sort();
  }

  async commitRefresh(run: SyncRun, batch: RefreshBatch, lease: SyncLease): Promise<CommitCounts> {
    const t = this.#t;
    // Every claimed task is either returned (upserted, which ends its lease) or vanished (marked
    // here): the two touch different rows, as one statement must.
    const { rows } = await this.#query<{ new: string; changed: string; deleted: string; gone: string }>(
      'committing a refresh',
      `WITH ${upsertTasksSql(
        t,
        { tasks: '$1', syncedAt: '$2::timestamptz', run: '$3::bigint' },
        // Only the tasks this lease still holds: a holder whose lease ran out and passed on writes nothing.
        `r.id IN (SELECT id FROM ${t.tasks} WHERE lease_token = $5)`,
      )},
       gone AS (UPDATE ${t.tasks} SET deleted_at = coalesce(deleted_at, $2::timestamptz), vanished = true,
                  synced_at = $2::timestamptz, ${FREE_SQL}
                WHERE id = ANY($4::text[]) AND deleted_at IS NULL AND lease_token = $5 RETURNING 1)
       SELECT ${UPSERT_COUNTS}, (SELECT count(*) FROM gone) AS gone`,
      [tasksParameter(batch.tasks), isoTime(batch.syncedAt), run.id, [...batch.vanished], lease.holder],
    );
    const row = rows[0] as { new: string; changed: string; deleted: string; gone: string };
    const counts = counted(row);
    return { ...counts, deleted: counts.deleted + Number(row.gone) };
  }

  async finishRun(run: SyncRun, finishedAt: number): Promise<RunEnd> {
    const t = this.#t;
    const { rows } = await this.#query<{
      ended: boolean;
      vanished: string;
      before: boolean;
      held: HeldLease[] | null;
    }>(
      'ending a run',
      `WITH r AS (
         UPDATE ${t.runs} SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM ${t.windows} WHERE run_id = $1 AND state <> 'done')
           AND (kind = 'full' OR NOT EXISTS (SELECT 1 FROM ${t.tasks} WHERE ${OPEN_UNSEEN('$1')}))
         RETURNING kind, started_at),
       -- Only what the run's range covered: a task created after its end is not its to judge.
       v AS (
         UPDATE ${t.tasks} SET deleted_at = coalesce(deleted_at, to_timestamp($2::bigint / 1000.0)), vanished = true
         WHERE EXISTS (SELECT 1 FROM r WHERE kind = 'full') AND seen_run <> $1 AND NOT vanished
           AND (created_at IS NULL OR created_at <= (SELECT to_timestamp(started_at / 1000.0) FROM r))
         RETURNING 1),
       d AS (DELETE FROM ${t.windows} WHERE run_id = $1 AND EXISTS (SELECT 1 FROM r))
       SELECT EXISTS (SELECT 1 FROM r) AS ended, (SELECT count(*) FROM v) AS vanished,
              coalesce((SELECT finished_at IS NOT NULL FROM ${t.runs} WHERE id = $1), true) AS before,
              ${heldLeasesSql(t, '$1', run.kind === 'incremental')} AS held`,
      [run.id, finishedAt],
    );
    const row = rows[0];
    const finished = Boolean(row?.ended || row?.before);
    return {
      finished,
      vanished: Number(row?.vanished ?? 0),
      ...(finished
        ? {}
        : { held: (row?.held ?? []).map((h) => ({ holder: h.holder, until: Number(h.until) })) }),
    };
  }

  async renewLeases(holders: readonly string[], ms: number): Promise<string[]> {
    const { rows } = await this.#query<{ holder: string }>('renewing leases', renewLeasesSql(this.#t), [
      [...holders],
      ms,
    ]);
    return rows.map((row) => row.holder);
  }

  async endLeases(holders: readonly string[]): Promise<void> {
    await this.#query('ending leases', endLeasesSql(this.#t), [[...holders]]);
  }

  async endRun(run: SyncRun): Promise<void> {
    const t = this.#t;
    await this.#query(
      'ending an unfinished run',
      `WITH r AS (DELETE FROM ${t.runs} WHERE id = $1 AND finished_at IS NULL RETURNING id)
       DELETE FROM ${t.windows} WHERE run_id IN (SELECT id FROM r)`,
      [run.id],
    );
  }

  /**
   * The copy's rows as stored, in `query.order` (ID by default), read in batches (any size of copy in
   * constant memory).
   */
  rows(query: CopyQuery = {}): AsyncGenerator<CopyRecord, void, undefined> {
    return readRecords(this.#readBatch, query);
  }

  /**
   * The copy's tasks, typed, in `query.order` (ID by default), read in batches.
   *
   * @example
   * for await (const { task } of store.tasks({ state: TaskState.OPEN })) console.log(task.id);
   */
  tasks(query: CopyQuery = {}): AsyncGenerator<CopiedTask, void, undefined> {
    return readTasks(this.#readBatch, query);
  }

  readonly #readBatch: ReadBatch = (after, limit, query) =>
    readBatch(this.#query, this.#t, after, limit, query);

  /** Nothing to let go: workers share the copy, and their leases run out by themselves. */
  async release(): Promise<void> {}

  /** Ends the pool the store opened from `connectionString` (a second call does nothing); a pool passed in is left to you. */
  async close(): Promise<void> {
    await this.#db.close();
  }
}

export type { PgQueryable, PostgresStoreOptions };
export { postgresSyncSchema };
