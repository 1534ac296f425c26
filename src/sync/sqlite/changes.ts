/**
 * The change feed of a SQLite task copy (`idgov_changes`): rows written inside the store's write
 * transactions, which SQLite runs one at a time, so `seq` (AUTOINCREMENT: never reused, even once
 * pruned) increases in commit order. Reading it back in batches, and pruning it.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/errors.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import { type ChangeKind, pruneProblem } from '../change-kinds.ts';
import type { ChangeBatch, ChangeFeedStart } from '../changes.ts';
import { hasCompletedRun } from './read.ts';

/** A change to record: the task after it, and its state before. */
export interface NewChange {
  readonly kind: ChangeKind;
  readonly taskId: string;
  readonly at: string;
  readonly previousState: string | null;
  readonly state: string | null;
  readonly json: string;
}

/** Records the changes of the transaction under way, or none while `start` says the feed has not begun. */
export class ChangeWriter {
  readonly #file: SqliteFile;
  readonly #start: ChangeFeedStart;

  constructor(file: SqliteFile, start: ChangeFeedStart) {
    this.#file = file;
    this.#start = start;
  }

  /**
   * Whether changes are recorded now: once a first run completed; before, as the copy's first
   * commit did (a `seq` handed out: `all`; tasks but none: `after-first-copy`), whatever this
   * process was given; before any, as it was given. Asked once a transaction.
   */
  on(): boolean {
    // The counter first: one row, and once a change was recorded, the answer for every commit after.
    if ((lastSeq(this.#file) ?? 0) > 0 || hasCompletedRun(this.#file)) return true;
    return this.#start === 'all' && this.#file.sql('SELECT 1 FROM idgov_tasks LIMIT 1').get() === undefined;
  }

  record(change: NewChange): void {
    this.#file
      .sql(
        'INSERT INTO idgov_changes (kind, task_id, at, previous_state, state, task) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(change.kind, change.taskId, change.at, change.previousState, change.state, change.json);
  }
}

/**
 * The next `limit` rows after `after` by `seq`, keeping the changes of `kinds` (any when undefined):
 * the others are looked at by the primary key only, and their tasks not read. The last seq handed
 * out is read on the rows' snapshot: read after them, it could count a commit they did not see, and
 * a reader would take its changes for pruned.
 */
export function readChangeBatch(
  file: SqliteFile,
  after: number,
  limit: number,
  kinds: readonly ChangeKind[] | undefined,
): ChangeBatch {
  const wanted = kinds ? `kind IN (${kinds.map(() => '?').join(', ')})` : '1';
  const { rows, handedOut } = file.snapshot(() => {
    try {
      const read = file
        .sql(
          `SELECT seq, kind, task_id, at, previous_state, state, CASE WHEN ${wanted} THEN task END AS task
           FROM idgov_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
        )
        .all(...(kinds ?? []), after, limit) as Array<Record<string, string | number | null>>;
      return { rows: read, handedOut: read.length > 0 ? undefined : (lastSeq(file) ?? 0) };
    } catch (error) {
      throw noFeed(file, error);
    }
  });
  const records = rows
    .filter((row) => row.task !== null)
    .map((row) => ({
      seq: Number(row.seq),
      kind: row.kind as ChangeKind,
      taskId: String(row.task_id),
      at: String(row.at),
      previousState: (row.previous_state as string | null) ?? undefined,
      state: (row.state as string | null) ?? undefined,
      json: String(row.task),
    }));
  const last = rows.at(-1);
  return {
    records,
    through: last ? Number(last.seq) : undefined,
    first: rows[0] ? Number(rows[0].seq) : undefined,
    full: rows.length === limit,
    last: handedOut,
  };
}

/** The last seq handed out, pruned or not (AUTOINCREMENT keeps it); undefined before the first. */
function lastSeq(file: SqliteFile): number | undefined {
  const row = file.sql("SELECT seq FROM sqlite_sequence WHERE name = 'idgov_changes'").get() as
    | { seq: number }
    | undefined;
  return row && Number(row.seq);
}

// Changes pruned a transaction at a time.
const PRUNE_BATCH = 10_000;

/**
 * Deletes the changes before `before`, oldest first: how many. A feed of millions of rows is pruned
 * a batch a transaction, so that no writer waits for the whole of it.
 */
export function pruneChangeRows(file: SqliteFile, before: number): number {
  const last = lastSeq(file);
  const problem = last !== undefined && pruneProblem(before, last);
  if (problem) throw new ConfigurationError(problem);
  const batch = file.sql(
    'DELETE FROM idgov_changes WHERE seq IN (SELECT seq FROM idgov_changes WHERE seq < ? ORDER BY seq LIMIT ?)',
  );
  let pruned = 0;
  for (;;) {
    const deleted = Number(file.write(() => batch.run(before, PRUNE_BATCH)).changes);
    pruned += deleted;
    if (deleted < PRUNE_BATCH) return pruned;
  }
}

/** A copy made before the feed existed has no table for it until a sync of this SDK opens it. */
function noFeed(file: SqliteFile, error: unknown): unknown {
  if (!/no such table: idgov_changes/.test(String((error as Error)?.message))) return error;
  return new ConfigurationError(
    `${file.path} is a task copy without a change feed (made by an older @idgov/sdk): run \`idgov sync --db ${file.path}\` once with this version to add it.`,
    { cause: error },
  );
}
