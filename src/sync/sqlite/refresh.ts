/**
 * The refresh of a SQLite task copy: the live tasks a run's windows did not fetch, which it asks
 * for by ID, claimed under a cursor's lease inside the store's write transactions.
 *
 * @module
 */

import { isoTime } from '../../internal/time.ts';
import { notHeldSql } from '../../stores/lease.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import type { SyncLease, SyncRun } from '../store.ts';

// The tasks due a refresh (placeholders: `dueParams`). An incremental run, those the copy holds as
// open (a change to one need not show in its windows); a full run, every one its range covered,
// before it would mark them vanished: a task its pages missed (a purge that shifted a service's
// offset tokens in a burst) is still there. Two statements, so that an incremental run's finds the
// open tasks by the index on state.
const refreshDueSql = (run: SyncRun) =>
  run.kind === 'full'
    ? 'deleted_at IS NULL AND seen_run <> ? AND (created_at IS NULL OR created_at <= ?)'
    : "state = 'TASK_STATE_OPEN' AND deleted_at IS NULL AND seen_run <> ?";
const dueParams = (run: SyncRun) => (run.kind === 'full' ? [run.id, isoTime(run.startedAt)] : [run.id]);

// The run's windows are all done, and it is not over (one ended by a full run asked for hands out
// no more work): placeholders, its ID twice.
const READY = `NOT EXISTS (SELECT 1 FROM idgov_sync_windows WHERE run_id = ? AND state <> 'done')
  AND EXISTS (SELECT 1 FROM idgov_sync_runs WHERE id = ? AND finished_at IS NULL)`;

/**
 * Takes under `lease` up to `limit` tasks due a refresh that no live lease holds, in ID order; none
 * while a window of the run is not done (checked first, so that the tasks are read only then).
 */
export function claimRefresh(
  file: SqliteFile,
  run: SyncRun,
  lease: SyncLease,
  limit: number,
  now: number,
): string[] {
  const ready = file.sql(`SELECT ${READY} AS ready`).get(run.id, run.id) as { ready: number };
  if (!ready.ready) return [];
  const rows = file
    .sql(
      `SELECT id FROM idgov_tasks WHERE ${refreshDueSql(run)} AND ${notHeldSql('?', '?')} ORDER BY id LIMIT ?`,
    )
    .all(...dueParams(run), now, now, limit) as Array<{ id: string }>;
  const take = file.sql(
    'UPDATE idgov_tasks SET lease_token = ?, leased_at = ?, lease_until = ? WHERE id = ?',
  );
  for (const { id } of rows) take.run(lease.holder, now, now + lease.ms, id);
  return rows.map((row) => row.id);
}

/** Whether a task is due a refresh of `run`, held or not: the run waits for it. */
export function refreshDue(file: SqliteFile, run: SyncRun): boolean {
  const row = file
    .sql(`SELECT EXISTS (SELECT 1 FROM idgov_tasks WHERE ${refreshDueSql(run)}) AS due`)
    .get(...dueParams(run)) as {
    due: number;
  };
  return row.due === 1;
}
