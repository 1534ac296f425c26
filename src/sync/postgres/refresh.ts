/**
 * The refresh of open tasks in a PostgreSQL task copy: claiming a batch of the tasks the copy holds
 * as open that the run has not fetched, and committing what the service said of them, with their
 * changes, in one statement.
 *
 * @module
 */
import { isoTime } from '../../internal/time.ts';
import { FREE_SQL, notHeldSql } from '../../stores/lease.ts';
import type { CommitCounts, RefreshBatch, SyncLease, SyncRun } from '../store.ts';
import { AFTER_SEQ, feedOnSql, fetchedChangesSql, recordChangesSql, vanishedChangesSql } from './changes.ts';
import { AFTER_HELD, leasedRowsLockedSql } from './leases.ts';
import {
  counted,
  expandedParameter,
  NOW,
  type PgQuery,
  tasksParameter,
  UPSERT_COUNTS,
  upsertExpandedSql,
  upsertTasksSql,
} from './rows.ts';
import type { SyncTables } from './schema.ts';

/**
 * The refresh's work, the rule of the SQLite store's `refreshDueSql`: the live tasks `run` has not
 * fetched that it asks for by ID. An incremental run, those the copy holds as open (found by the
 * index on state); a full run, every one its range covered, before it would mark them vanished.
 * `id` is the run's ID as an SQL expression.
 */
export const refreshDueSql = (run: SyncRun, id: string) =>
  run.kind === 'full'
    ? `deleted_at IS NULL AND seen_run <> ${id} AND (created_at IS NULL OR created_at <= to_timestamp(${Number(run.startedAt)} / 1000.0))`
    : `state = 'TASK_STATE_OPEN' AND deleted_at IS NULL AND seen_run <> ${id}`;

/** Takes, under `lease`, up to `limit` tasks due a refresh (`refreshDueSql`) no live lease holds, in ID order. */
export async function claimOpenTasks(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  lease: SyncLease,
  limit: number,
): Promise<string[]> {
  const { rows } = await query<{ id: string }>(
    'claiming open tasks',
    `UPDATE ${t.tasks} SET lease_token = $2, leased_at = ${NOW}, lease_until = ${NOW} + $3
     WHERE id IN (SELECT id FROM ${t.tasks} WHERE ${refreshDueSql(run, '$1')} AND ${notHeldSql(NOW)}
                    AND NOT EXISTS (SELECT 1 FROM ${t.windows} WHERE run_id = $1 AND state <> 'done')
                    AND EXISTS (SELECT 1 FROM ${t.runs} WHERE id = $1 AND finished_at IS NULL)
                  ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [run.id, lease.holder, lease.ms, limit],
  );
  return rows.map((row) => row.id).sort();
}

/**
 * Commits a batch of the refresh: the tasks the service returned, and those it did not (marked
 * deleted and vanished), with their changes (`feedAll`: the feed records the first copy too).
 */
export async function commitRefresh(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  batch: RefreshBatch,
  lease: SyncLease,
  feedAll: boolean,
): Promise<CommitCounts> {
  // Every claimed task is either returned (upserted, which ends its lease) or vanished (marked
  // here): the two touch different rows, as one statement must.
  const { rows } = await query<{ new: string; changed: string; deleted: string; gone: string }>(
    'committing a refresh',
    `WITH ${leasedRowsLockedSql(t, '$5')},
     ${upsertTasksSql(
       t,
       { tasks: '$1', syncedAt: '$2::timestamptz', run: '$3::bigint', heldBy: '$5' },
       // Only the tasks this lease still holds: a holder whose lease ran out and passed on writes
       // nothing. Checked again on each locked row (heldBy): a claim committed after this statement's
       // snapshot was taken is not in it.
       `r.id IN (SELECT id FROM ${t.tasks} WHERE lease_token = $5) AND ${AFTER_HELD}`,
     )},
     gone AS (UPDATE ${t.tasks} SET deleted_at = coalesce(deleted_at, $2::timestamptz), vanished = true,
                synced_at = $2::timestamptz, ${FREE_SQL}
              WHERE id = ANY($4::text[]) AND deleted_at IS NULL AND lease_token = $5 AND ${AFTER_HELD}
              RETURNING id, state, task),
     ${fetchedChangesSql(feedOnSql(t, '$6'))},
     ${vanishedChangesSql('gone', feedOnSql(t, '$6'))},
     ${recordChangesSql(t, ['fetched', 'vanished'], '$2::timestamptz')},
     ${upsertExpandedSql(
       t,
       { expanded: '$7', syncedAt: '$2::timestamptz' },
       `EXISTS (SELECT 1 FROM ${t.tasks} WHERE lease_token = $5) AND ${AFTER_SEQ}`,
     )}
     SELECT ${UPSERT_COUNTS}, (SELECT count(*) FROM gone) AS gone`,
    [
      tasksParameter(batch.tasks),
      isoTime(batch.syncedAt),
      run.id,
      [...batch.vanished],
      lease.holder,
      feedAll,
      expandedParameter(batch.expanded ?? []),
    ],
  );
  const row = rows[0] as { new: string; changed: string; deleted: string; gone: string };
  const counts = counted(row);
  return { ...counts, deleted: counts.deleted + Number(row.gone) };
}
