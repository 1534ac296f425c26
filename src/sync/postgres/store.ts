/**
 * The task copy in PostgreSQL, for any number of workers on any number of machines. Import it from
 * `@idgov/sdk/sync/postgres`; it needs the `pg` package.
 *
 * @module sync/postgres
 */

import { ConfigurationError } from '../../core/errors/errors.ts';
import { type PgQueryable, PostgresConnection, type PostgresStoreOptions } from '../../stores/postgres.ts';
import { migrateLocked } from '../../stores/postgres-migrate.ts';
import {
  type ChangeFeed,
  type ChangeFeedStart,
  type ChangeRecord,
  type ChangesQuery,
  changeFeedProblem,
  FeedAccess,
  type TaskChange,
} from '../changes.ts';
import { type CopiedTask, type CopyReader, readTasks } from '../copy-reader.ts';
import { type CopyQuery, type CopyRecord, type ReadBatch, readRecords } from '../copy-rows.ts';
import type { CopyStatus } from '../copy-status.ts';
import type {
  CommitCounts,
  CopyIdentity,
  CopyState,
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
import { pruneChangeRows, readChangeBatch } from './changes.ts';
import { endLeasesSql, renewLeasesSql } from './leases.ts';
import { readBatch, readStatus } from './read.ts';
import { claimOpenTasks, commitRefresh } from './refresh.ts';
import type { PgQuery } from './rows.ts';
import { beginRun, finishRun, hasCompletedRun, openCopy, unfinishedRun } from './runs.ts';
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
export interface PostgresSyncStoreOptions extends PostgresStoreOptions {
  /**
   * Whether the change feed records the first full copy (`all`, the default) or begins once a
   * first run completed (`after-first-copy`), for a copy with no task yet: after, the copy keeps
   * the setting its first commit had; see {@link ChangeFeedStart}. Give every worker of a
   * copy the same.
   */
  readonly changeFeed?: ChangeFeedStart | undefined;
}

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
export class PostgresSyncStore implements SyncStore, CopyReader, ChangeFeed {
  /** The prefix of the copy's tables (`idgov`: `idgov_tasks`, `idgov_expanded`, ...). */
  readonly table: string;
  readonly #t: SyncTables;
  readonly #db: PostgresConnection;
  readonly #feedAll: boolean;

  constructor(options: PostgresSyncStoreOptions) {
    if (!options || typeof options !== 'object') {
      throw new ConfigurationError('Pass { connectionString } or { pool } to PostgresSyncStore.');
    }
    const { changeFeed, ...connection } = options;
    const feedProblem = changeFeedProblem(changeFeed);
    if (feedProblem) throw new ConfigurationError(feedProblem);
    this.#feedAll = changeFeed !== 'after-first-copy';
    this.#t = syncTables(options.table ?? DEFAULT_SYNC_PREFIX);
    this.table = this.#t.prefix;
    this.#db = new PostgresConnection(connection, {
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
    return beginRun(this.#query, this.#t, kind, startedAt, windows, this.#feedAll);
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
    return commitPage(this.#query, this.#t, run, window, page, lease, this.#feedAll);
  }

  async claimOpenTasks(run: SyncRun, lease: SyncLease, limit: number): Promise<string[]> {
    return claimOpenTasks(this.#query, this.#t, run, lease, limit);
  }

  async commitRefresh(run: SyncRun, batch: RefreshBatch, lease: SyncLease): Promise<CommitCounts> {
    return commitRefresh(this.#query, this.#t, run, batch, lease, this.#feedAll);
  }

  async finishRun(run: SyncRun, finishedAt: number): Promise<RunEnd> {
    return finishRun(this.#query, this.#t, run, finishedAt, this.#feedAll);
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

  /** Whether a run of the copy has completed: until then it holds part of the tenant's tasks. */
  hasCompletedRun(): Promise<boolean> {
    return hasCompletedRun(this.#query, this.#t);
  }

  /** Where the copy stands: what it holds, its last completed run, the run under way or stopped, its feed's last `seq`. */
  status(): Promise<CopyStatus> {
    return readStatus(this.#query, this.#t);
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

  /**
   * The change feed after `query.after`, typed, in `seq` order; with `follow`, waiting for new
   * changes until `query.signal` aborts. A reader never passes over a change another worker has yet
   * to commit: `seq` is handed out in commit order.
   *
   * @example
   * for await (const change of store.changes({ after: saved, follow: true, signal })) await handle(change);
   */
  changes(query: ChangesQuery = {}): AsyncGenerator<TaskChange, void, undefined> {
    return this.#feed.changes(query);
  }

  /** The change feed as stored, as {@link PostgresSyncStore.changes} reads it. */
  changeRows(query: ChangesQuery = {}): AsyncGenerator<ChangeRecord, void, undefined> {
    return this.#feed.changeRows(query);
  }

  /** Deletes the feed's changes before `seq` (retention): how many. */
  async pruneChanges(before: number): Promise<number> {
    return this.#feed.pruneChanges(before);
  }

  readonly #feed = new FeedAccess(
    (after, limit, kinds) => readChangeBatch(this.#query, this.#t, after, limit, kinds),
    (before) => pruneChangeRows(this.#query, this.#t, before),
  );

  /** Nothing to let go: workers share the copy, and their leases run out by themselves. */
  async release(): Promise<void> {}

  /** Ends the pool the store opened from `connectionString` (a second call does nothing); a pool passed in is left to you. */
  async close(): Promise<void> {
    await this.#db.close();
  }
}

export type { PgQueryable, PostgresStoreOptions };
export { postgresSyncSchema };
