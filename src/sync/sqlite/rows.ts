/**
 * Writes of a SQLite task copy's documented tables: tasks upserted by ID, expanded objects by type
 * and ID. Called inside the store's write transactions.
 *
 * @module
 */

import { isoTime } from '../../internal/time.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import { ChangeKind, fetchedChangeKind } from '../change-kinds.ts';
import type { ExpandedRow, SyncRun, TaskRow } from '../store.ts';
import type { ChangeWriter } from './changes.ts';

/**
 * Upserts `rows`, fetched by `run`: a later fetch replaces an earlier one, whatever the service's
 * `updatedAt` says (its nodes' clocks differ), and a fetch of an earlier run than the one that last
 * wrote a task (a writer late by a whole run) changes nothing. With `oncePerRun`, neither does a
 * fetch of a task `run` wrote already: the two ends of a burst overlap where they meet, and the
 * page committed last may hold the older fetch, which would put a change that never happened in the
 * feed. Counts what changed, and records each real change in the feed.
 */
export function upsertTasks(
  file: SqliteFile,
  run: SyncRun,
  rows: readonly TaskRow[],
  syncedAt: string,
  feed: ChangeWriter,
  oncePerRun = false,
): { new: number; changed: number; deleted: number } {
  const counts = { new: 0, changed: 0, deleted: 0 };
  const recording = rows.length > 0 && feed.on();
  const existing = file.sql(
    'SELECT seen_run, state, deleted_at, vanished, task FROM idgov_tasks WHERE id = ?',
  );
  const put = file.sql(
    `INSERT INTO idgov_tasks (id, state, created_at, updated_at, deleted_at, vanished, synced_at, seen_run, task)
     VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET state = excluded.state, created_at = excluded.created_at,
       updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, vanished = 0,
       synced_at = excluded.synced_at, seen_run = excluded.seen_run, task = excluded.task`,
  );
  for (const row of rows) {
    const before = existing.get(row.id) as
      | { seen_run: number; state: string | null; deleted_at: string | null; vanished: number; task: string }
      | undefined;
    if (before && (before.seen_run > run.id || (oncePerRun && before.seen_run === run.id))) continue;
    put.run(
      row.id,
      row.state ?? null,
      row.createdAt ?? null,
      row.updatedAt ?? null,
      row.deletedAt ?? null,
      syncedAt,
      run.id,
      row.json,
    );
    const kind = fetchedChangeKind(
      before && { deleted: before.deleted_at !== null, vanished: before.vanished === 1 },
      row.deletedAt !== undefined,
      before?.task === row.json,
    );
    if (!before) counts.new += 1;
    else if (kind) counts.changed += 1;
    if (kind === ChangeKind.DELETED) counts.deleted += 1;
    if (recording && kind) {
      feed.record({
        kind,
        taskId: row.id,
        at: syncedAt,
        previousState: before?.state ?? null,
        state: row.state ?? null,
        json: row.json,
      });
    }
  }
  return counts;
}

/** Upserts expanded objects by `@type` and ID. */
export function putExpanded(file: SqliteFile, rows: readonly ExpandedRow[], syncedAt: string): void {
  const put = file.sql(
    `INSERT INTO idgov_expanded (type, id, synced_at, object) VALUES (?, ?, ?, ?)
     ON CONFLICT (type, id) DO UPDATE SET synced_at = excluded.synced_at, object = excluded.object`,
  );
  for (const row of rows) put.run(row.type, row.id, syncedAt, row.json);
}

/**
 * Marks the tasks `ids` that `holder` leases, and the service no longer returns, deleted and
 * vanished, recording each in the feed: how many.
 */
export function vanishLeased(
  file: SqliteFile,
  ids: readonly string[],
  holder: string,
  at: string,
  feed: ChangeWriter,
): number {
  const gone = file.sql(
    `UPDATE idgov_tasks SET deleted_at = coalesce(deleted_at, ?), vanished = 1, synced_at = ?
     WHERE id = ? AND deleted_at IS NULL AND lease_token = ? RETURNING id, state, task`,
  );
  const rows = ids.flatMap((id) => gone.all(at, at, id, holder) as VanishedRow[]);
  recordVanished(rows, at, feed);
  return rows.length;
}

// Tasks a full run (placeholders: its ID, the end of its range) did not see, not yet marked vanished.
const UNSEEN = 'seen_run <> ? AND vanished = 0 AND (created_at IS NULL OR created_at <= ?)';

/**
 * After a full run: marks the tasks it did not see deleted and vanished, recording each in the feed.
 * Only what the run's range covered: a task created after its end (by a clock its start was told
 * wrong) is not its to judge. How many of them were not deleted before (a deleted task the service
 * then forgot is vanished, but was not newly deleted).
 */
export function vanishUnseen(file: SqliteFile, run: SyncRun, at: string, feed: ChangeWriter): number {
  const end = isoTime(run.startedAt);
  const live = file
    .sql(`SELECT count(*) AS n FROM idgov_tasks WHERE ${UNSEEN} AND deleted_at IS NULL`)
    .get(run.id, end) as { n: number };
  const rows = file
    .sql(
      `UPDATE idgov_tasks SET deleted_at = coalesce(deleted_at, ?), vanished = 1
       WHERE ${UNSEEN} RETURNING id, state, task`,
    )
    .all(at, run.id, end) as VanishedRow[];
  recordVanished(rows, at, feed);
  return live.n;
}

type VanishedRow = { id: string; state: string | null; task: string };

function recordVanished(rows: readonly VanishedRow[], at: string, feed: ChangeWriter): void {
  if (rows.length === 0 || !feed.on()) return;
  for (const row of rows) {
    feed.record({
      kind: ChangeKind.VANISHED,
      taskId: row.id,
      at,
      previousState: row.state,
      state: row.state,
      json: row.task,
    });
  }
}
