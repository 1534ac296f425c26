/**
 * Reading a SQLite task copy back: its rows in batches by key, and the check that a file opened
 * only to read holds a copy.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/errors.ts';
import { isDamaged, type SqliteFile } from '../../stores/sqlite-file.ts';
import type { CopyKey, CopyQuery, CopyRecord } from '../copy-reader.ts';

/** A file opened to read must hold a task copy: said with what to do, rather than a failed query later. */
export function checkCopy(file: SqliteFile): void {
  try {
    file.sql('SELECT 1 FROM idgov_tasks LIMIT 1').get();
  } catch (error) {
    file.close();
    const path = file.path;
    throw new ConfigurationError(
      isDamaged(error)
        ? `${path} is not a SQLite file, or is damaged (${(error as Error).message}): check the path.`
        : `${path} is a SQLite file but no task copy (${(error as Error).message}): check the path, or run \`idgov sync --db ${path}\` to make one.`,
      { cause: error },
    );
  }
}

/** Up to `limit` rows of the copy after `after`, in `query.order`: a batch of `SqliteSyncStore.rows()`. */
export function readRows(
  file: SqliteFile,
  after: CopyKey | undefined,
  limit: number,
  query: CopyQuery,
): CopyRecord[] {
  const created = query.order === 'created';
  const keyset = created ? "(coalesce(created_at, ''), id) > (?, ?)" : 'id > ?';
  const key = created ? [after?.createdAt ?? '', after?.id ?? ''] : [after?.id ?? ''];
  const rows = file.read(() =>
    file
      .sql(
        `SELECT id, state, created_at, updated_at, deleted_at, vanished, synced_at, task FROM idgov_tasks
         WHERE ${after ? keyset : '1'} AND (? IS NULL OR state = ?) AND (? OR deleted_at IS NULL)
         ORDER BY ${created ? "coalesce(created_at, ''), id" : 'id'} LIMIT ?`,
      )
      .all(
        ...(after ? key : []),
        query.state ?? null,
        query.state ?? null,
        query.includeDeleted === true ? 1 : 0,
        limit,
      ),
  ) as Array<Record<string, string | number | null>>;
  return rows.map((row) => ({
    id: String(row.id),
    state: (row.state as string | null) ?? undefined,
    createdAt: (row.created_at as string | null) ?? undefined,
    updatedAt: (row.updated_at as string | null) ?? undefined,
    deletedAt: (row.deleted_at as string | null) ?? undefined,
    vanished: row.vanished === 1,
    syncedAt: String(row.synced_at),
    json: String(row.task),
  }));
}
