/**
 * Reading a PostgreSQL task copy back, a batch of rows at a time by key; and where it stands.
 *
 * @module
 */

import { type CopyKey, type CopyQuery, type CopyRecord, createdOrderBatch } from '../copy-rows.ts';
import { type CopyStatus, copyStatus, leaseCountsSql, type StatusRows } from '../copy-status.ts';
import { missingTable } from './no-copy.ts';
import { NOW, type PgQuery } from './rows.ts';
import type { SyncTables } from './schema.ts';

/** Up to `limit` rows of the copy after `after`, in `query.order`: a batch of `PostgresSyncStore.rows()`. */
export async function readBatch(
  query: PgQuery,
  t: SyncTables,
  after: CopyKey | undefined,
  limit: number,
  options: CopyQuery,
): Promise<readonly CopyRecord[]> {
  const select = async (where: string, order: string, values: unknown[], count: number) => {
    const { rows } = await query<Row>(
      'reading the copy',
      `SELECT id, state, created_at, updated_at, deleted_at, vanished, synced_at, task::text AS task
       FROM ${t.tasks}
       WHERE ($1::text IS NULL OR state = $1) AND ($2 OR deleted_at IS NULL) AND ${where}
       ORDER BY ${order} LIMIT $3`,
      [options.state ?? null, options.includeDeleted === true, count, ...values],
    ).catch(async (error: unknown) => {
      throw await missingTable(query, t, error);
    });
    return rows.map(record);
  };
  if (options.order !== 'created') return select('id > $4', 'id', [after?.id ?? ''], limit);
  return createdOrderBatch(
    after,
    limit,
    (afterId, count) => select('created_at IS NULL AND id > $4', 'id', [afterId], count),
    (key, count) =>
      key
        ? select('(created_at, id) > ($4::timestamptz, $5)', 'created_at, id', [key.createdAt, key.id], count)
        : select('created_at IS NOT NULL', 'created_at, id', [], count),
  );
}

interface Row {
  id: string;
  state: string | null;
  created_at: Date | null;
  updated_at: Date | null;
  deleted_at: Date | null;
  vanished: boolean;
  synced_at: Date;
  task: string;
}

/** A row as pg gives it, as the reader hands it on (times as ISO 8601). */
function record(row: Row): CopyRecord {
  return {
    id: row.id,
    state: row.state ?? undefined,
    createdAt: row.created_at?.toISOString(),
    updatedAt: row.updated_at?.toISOString(),
    deletedAt: row.deleted_at?.toISOString(),
    vanished: row.vanished,
    syncedAt: row.synced_at.toISOString(),
    json: row.task,
  };
}

/** Where the copy stands: what `PostgresSyncStore.status()` tells. */
export async function readStatus(query: PgQuery, t: SyncTables): Promise<CopyStatus> {
  // One statement, so one snapshot: a worker committing meanwhile must not make the counts and the
  // feed disagree. A copy of an earlier release, not yet migrated, has no feed (`last_seq` NULL).
  const { rows } = await query<{
    counts: StatusRows['counts'];
    completed: StatusRows['completed'] | null;
    unfinished: StatusRows['unfinished'] | null;
    last_seq: string | null;
    leases: StatusRows['leases'];
  }>(
    'reading where the copy stands',
    `SELECT
       (SELECT coalesce(json_agg(c), '[]') FROM (
          SELECT state, deleted_at IS NOT NULL AS deleted, vanished, count(*) AS n FROM ${t.tasks} GROUP BY 1, 2, 3) c
       ) AS counts,
       (SELECT row_to_json(r) FROM (
          SELECT kind, finished_at FROM ${t.runs} WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1) r
       ) AS completed,
       (SELECT row_to_json(u) FROM (
          SELECT r.kind, r.started_at, count(*) FILTER (WHERE w.state = 'done') AS done,
            count(*) FILTER (WHERE w.state <> 'done') AS left, sum(w.pages) AS pages, sum(w.tasks) AS tasks
          FROM ${t.runs} r LEFT JOIN ${t.windows} w ON w.run_id = r.id
          WHERE r.finished_at IS NULL GROUP BY r.id ORDER BY r.id DESC LIMIT 1) u
       ) AS unfinished,
       CASE WHEN to_regclass($1) IS NOT NULL
         THEN coalesce((SELECT value FROM ${t.meta} WHERE key = 'changes_seq'), '0') END AS last_seq,
       (SELECT coalesce(json_agg(l), '[]') FROM (${leaseCountsSql(t.windows, t.tasks, NOW)}) l) AS leases`,
    [t.changes],
  ).catch(async (error: unknown) => {
    throw await missingTable(query, t, error);
  });
  const row = rows[0];
  return copyStatus({
    counts: row?.counts ?? [],
    completed: row?.completed ?? undefined,
    unfinished: row?.unfinished ?? undefined,
    lastSeq: row?.last_seq ?? undefined,
    leases: row?.leases ?? [],
  });
}
