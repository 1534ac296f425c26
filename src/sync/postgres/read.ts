/**
 * Reading a PostgreSQL task copy back, a batch of rows at a time by key.
 *
 * @module
 */
import type { CopyKey, CopyQuery, CopyRecord } from '../copy-reader.ts';
import type { PgQuery } from './rows.ts';
import type { SyncTables } from './schema.ts';

/** Up to `limit` rows of the copy after `after`, in `query.order`: a batch of `PostgresSyncStore.rows()`. */
export async function readBatch(
  query: PgQuery,
  t: SyncTables,
  after: CopyKey | undefined,
  limit: number,
  options: CopyQuery,
): Promise<CopyRecord[]> {
  const created = options.order === 'created';
  const { rows } = await query<{
    id: string;
    state: string | null;
    created_at: Date | null;
    updated_at: Date | null;
    deleted_at: Date | null;
    vanished: boolean;
    synced_at: Date;
    task: string;
  }>(
    'reading the copy',
    `SELECT id, state, created_at, updated_at, deleted_at, vanished, synced_at, task::text AS task
     FROM ${t.tasks}
     WHERE ($1::text IS NULL OR state = $1) AND ($2 OR deleted_at IS NULL)
       AND ($4::text IS NULL OR ${created ? "(coalesce(created_at, '-infinity'), id) > ($5::timestamptz, $4)" : 'id > $4'})
     ORDER BY ${created ? "coalesce(created_at, '-infinity'), id" : 'id'} LIMIT $3`,
    [
      options.state ?? null,
      options.includeDeleted === true,
      limit,
      after?.id ?? null,
      ...(created ? [after?.createdAt || '-infinity'] : []),
    ],
  );
  return rows.map((row) => ({
    id: row.id,
    state: row.state ?? undefined,
    createdAt: row.created_at?.toISOString(),
    updatedAt: row.updated_at?.toISOString(),
    deletedAt: row.deleted_at?.toISOString(),
    vanished: row.vanished,
    syncedAt: row.synced_at.toISOString(),
    json: row.task,
  }));
}
