/**
 * Reading a SQLite task copy back: its rows in batches by key, whether a run completed, where it
 * stands, and the check that a file opened only to read holds a copy.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/errors.ts';
import { isDamaged, isReadOnlyPlace } from '../../stores/sqlite-errors.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import { StoreError } from '../../stores/store-error.ts';
import { type CopyKey, type CopyQuery, type CopyRecord, createdOrderBatch } from '../copy-rows.ts';
import { type CopyStatus, copyStatus, leaseCountsSql, type StatusRows } from '../copy-status.ts';
import { copyHolder } from './holder.ts';

/** A file opened to read must hold a task copy: said with what to do, rather than a failed query later. */
export function checkCopy(file: SqliteFile): void {
  try {
    file.sql('SELECT 1 FROM idgov_tasks LIMIT 1').get();
  } catch (error) {
    // A file holding other tables (an outbox, an application's) is another file than meant: a copy
    // is not to be made in it.
    const others = NO_TABLE.test((error as Error).message) ? tablesOf(file) : [];
    file.close();
    // Another connection's lock held past busyTimeoutMs is no fault of the file: said as such.
    const failed = file.failed(error, 'reading');
    if (failed instanceof StoreError && failed.transient) throw failed;
    const path = file.path;
    const message = (error as Error).message;
    if (isDamaged(error)) {
      throw new ConfigurationError(
        `${path} is not a SQLite file, or is damaged (${message}): check the path.`,
        {
          cause: error,
        },
      );
    }
    if (isReadOnlyPlace(error)) {
      throw new ConfigurationError(
        `${path} cannot be read from here (${message}): a reader of a copy in WAL mode writes its index beside it (the -shm file), and this process may not write in that directory (its permissions, or a read-only mount). Run as a user who may, or read a copy of the file.`,
        { cause: error },
      );
    }
    // Anything else (a disk I/O error) is not the absence of a copy: said as SQLite says it.
    if (!NO_TABLE.test(message)) throw failed;
    const fix =
      others.length > 0
        ? `it holds other tables (${others.join(', ')}): check the path`
        : `check the path, or run \`idgov sync --db ${path}\` to make one`;
    throw new ConfigurationError(`${path} is a SQLite file but no task copy (${message}): ${fix}.`, {
      cause: error,
    });
  }
}

/** The first few tables of `file`, none where they cannot be read. */
function tablesOf(file: SqliteFile): string[] {
  try {
    const rows = file.sql("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 5").all();
    return rows.map((row) => String(row.name));
  } catch {
    return [];
  }
}

/** Whether a run of the copy has completed: until then it holds part of the tenant's tasks. */
export function hasCompletedRun(file: SqliteFile): boolean {
  return file.sql('SELECT 1 FROM idgov_sync_runs WHERE finished_at IS NOT NULL LIMIT 1').get() !== undefined;
}

/** Where the copy stands: what `SqliteSyncStore.status()` tells. */
export function readStatus(file: SqliteFile): CopyStatus {
  // One snapshot: a sync committing meanwhile must not make the counts and the feed disagree.
  return file.snapshot(() =>
    copyStatus({
      counts: file
        .sql(
          `SELECT state, deleted_at IS NOT NULL AS deleted, vanished, count(*) AS n FROM idgov_tasks
           GROUP BY 1, 2, 3`,
        )
        .all() as unknown as StatusRows['counts'],
      completed: file
        .sql(
          'SELECT kind, finished_at FROM idgov_sync_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1',
        )
        .get() as StatusRows['completed'],
      unfinished: file
        .sql(
          `SELECT r.kind, r.started_at, sum(w.state = 'done') AS done, sum(w.state <> 'done') AS left,
             sum(w.pages) AS pages, sum(w.tasks) AS tasks
           FROM idgov_sync_runs r LEFT JOIN idgov_sync_windows w ON w.run_id = r.id
           WHERE r.finished_at IS NULL GROUP BY r.id ORDER BY r.id DESC LIMIT 1`,
        )
        .get() as StatusRows['unfinished'],
      // No table: a copy of an earlier release, not yet synced by this one, has no feed.
      lastSeq: (
        file
          .sql(
            `SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'idgov_changes') AS seq
             WHERE EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idgov_changes')`,
          )
          .get() as { seq: number | null } | undefined
      )?.seq,
      leases: leaseRows(file),
      holder: holderRow(file),
    }),
  );
}

/** The copy's leases; none in a copy of schema version 1, read as it is, whose rows had no lease. */
function leaseRows(file: SqliteFile): StatusRows['leases'] {
  const leased = file
    .sql("SELECT 1 FROM pragma_table_info('idgov_sync_windows') WHERE name = 'lease_token'")
    .get();
  if (leased === undefined) return [];
  return file
    .sql(leaseCountsSql('idgov_sync_windows', 'idgov_tasks', '$now'))
    .all({ now: Date.now() }) as unknown as StatusRows['leases'];
}

function holderRow(file: SqliteFile): StatusRows['holder'] {
  const held = copyHolder(file);
  return held && { pid: held.pid, host: held.host, last_seen: held.seen, gone: held.gone };
}

// What SQLite says of a file that holds no copy's table.
const NO_TABLE = /no such table/i;

/** Up to `limit` rows of the copy after `after`, in `query.order`: a batch of `SqliteSyncStore.rows()`. */
export async function readRows(
  file: SqliteFile,
  after: CopyKey | undefined,
  limit: number,
  query: CopyQuery,
): Promise<readonly CopyRecord[]> {
  const filter = `(? IS NULL OR state = ?) AND (? OR deleted_at IS NULL)`;
  const filterValues = [query.state ?? null, query.state ?? null, query.includeDeleted === true ? 1 : 0];
  const select = (where: string, order: string, values: Array<string | number | null>, count: number) =>
    (
      file.read(() =>
        file
          .sql(
            `SELECT id, state, created_at, updated_at, deleted_at, vanished, synced_at, task FROM idgov_tasks
             WHERE ${where} AND ${filter} ORDER BY ${order} LIMIT ?`,
          )
          .all(...values, ...filterValues, count),
      ) as Array<Record<string, string | number | null>>
    ).map(record);
  if (query.order !== 'created') return select('id > ?', 'id', [after?.id ?? ''], limit);
  return createdOrderBatch(
    after,
    limit,
    (afterId, count) => select('created_at IS NULL AND id > ?', 'id', [afterId], count),
    (key, count) =>
      key
        ? select(
            'created_at IS NOT NULL AND (created_at, id) > (?, ?)',
            'created_at, id',
            [key.createdAt, key.id],
            count,
          )
        : select('created_at IS NOT NULL', 'created_at, id', [], count),
  );
}

/** A row as SQLite gives it, as the reader hands it on. */
function record(row: Record<string, string | number | null>): CopyRecord {
  return {
    id: String(row.id),
    state: (row.state as string | null) ?? undefined,
    createdAt: (row.created_at as string | null) ?? undefined,
    updatedAt: (row.updated_at as string | null) ?? undefined,
    deletedAt: (row.deleted_at as string | null) ?? undefined,
    vanished: row.vanished === 1,
    syncedAt: String(row.synced_at),
    json: String(row.task),
  };
}
