/**
 * Reading a PostgreSQL task copy back, a batch of rows at a time by key.
 *
 * @module
 */

import { type CopyKey, type CopyQuery, type CopyRecord, createdOrderBatch } from '../copy-rows.ts';
import type { PgQuery } from './rows.ts';
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
    );
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
