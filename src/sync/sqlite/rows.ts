/**
 * Writes of a SQLite task copy's documented tables: tasks upserted by ID, expanded objects by type
 * and ID. Called inside the store's write transactions.
 *
 * @module
 */
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import type { ExpandedRow, SyncRun, TaskRow } from '../store.ts';

/**
 * Upserts `rows`, fetched by `run`: a later fetch replaces an earlier one, whatever the service's
 * `updatedAt` says (its nodes' clocks differ), and a fetch of an earlier run than the one that last
 * wrote a task (a writer late by a whole run) changes nothing. Counts what changed.
 */
export function upsertTasks(
  file: SqliteFile,
  run: SyncRun,
  rows: readonly TaskRow[],
  syncedAt: string,
): { new: number; changed: number; deleted: number } {
  const counts = { new: 0, changed: 0, deleted: 0 };
  const existing = file.sql('SELECT seen_run, deleted_at, task FROM idgov_tasks WHERE id = ?');
  const put = file.sql(
    `INSERT INTO idgov_tasks (id, state, created_at, updated_at, deleted_at, vanished, synced_at, seen_run, task)
     VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET state = excluded.state, created_at = excluded.created_at,
       updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, vanished = 0,
       synced_at = excluded.synced_at, seen_run = excluded.seen_run, task = excluded.task`,
  );
  for (const row of rows) {
    const before = existing.get(row.id) as
      | { seen_run: number; deleted_at: string | null; task: string }
      | undefined;
    if (before && before.seen_run > run.id) continue;
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
    if (!before) counts.new += 1;
    else if (before.task !== row.json) counts.changed += 1;
    if (row.deletedAt && !before?.deleted_at) counts.deleted += 1;
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
