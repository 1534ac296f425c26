/**
 * Parts of a PostgreSQL task copy's statements: the server's clock, and the writes of the
 * documented tables, as parts of one statement: a page's tasks
 * and expanded objects go in as one `jsonb` parameter each, so that a page and its window's
 * progress commit in a single statement (atomic, and one round trip).
 *
 * @module
 */

import { SERVER_NOW_SQL } from '../../stores/postgres.ts';
import type { CommitCounts, ExpandedRow, TaskRow } from '../store.ts';
import type { SyncTables } from './schema.ts';

/** One statement of a store, as `PostgresConnection.query` runs it: `what` names it in errors. */
export type PgQuery = <R>(
  what: string,
  text: string,
  values: unknown[],
) => Promise<{ rows: R[]; rowCount: number }>;

/** The server's clock ({@link SERVER_NOW_SQL}): every worker's leases and runs are timed by it. */
export const NOW = SERVER_NOW_SQL;

/** The counts of {@link UPSERT_COUNTS}, which pg returns as text. */
export const counted = (row: { new: string; changed: string; deleted: string }): CommitCounts => ({
  new: Number(row.new),
  changed: Number(row.changed),
  deleted: Number(row.deleted),
});

// PostgreSQL text cannot hold U+0000, and jsonb refuses "\u0000" and an unpaired surrogate (which
// JSON.stringify writes as an escape, its only \ud800-\udfff escapes): such a character (an escape not
// itself escaped) becomes U+FFFD, the one change the copy makes to a task as sent, IDs included.
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;
const storable = (json: string) =>
  json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;

/** `rows` as the `jsonb` array the upsert reads: the task's JSON inlined as sent, not parsed again. */
export function tasksParameter(rows: readonly TaskRow[]): string {
  const items = rows.map(
    (row) =>
      `{"id":${JSON.stringify(row.id)},"state":${JSON.stringify(row.state ?? null)},"created_at":${JSON.stringify(
        row.createdAt ?? null,
      )},"updated_at":${JSON.stringify(row.updatedAt ?? null)},"deleted_at":${JSON.stringify(
        row.deletedAt ?? null,
      )},"task":${row.json}}`,
  );
  return storable(`[${items.join(',')}]`);
}

/** Expanded objects as the `jsonb` array the upsert reads. */
export function expandedParameter(rows: readonly ExpandedRow[]): string {
  const items = rows.map(
    (row) => `{"type":${JSON.stringify(row.type)},"id":${JSON.stringify(row.id)},"object":${row.json}}`,
  );
  return storable(`[${items.join(',')}]`);
}

/**
 * The common table expressions that upsert the tasks of parameter `$tasks` (see
 * {@link tasksParameter}) when `guard` holds, stamped `$syncedAt` (timestamptz) and `$run`: `input`,
 * and `up` (what was written: `inserted` for new ones, and the change it made). A later fetch replaces
 * an earlier one whatever the service's `updated_at` says (its nodes' clocks differ); a fetch of an
 * earlier run than the one that last wrote the task changes nothing, checked on the locked row.
 * Leases on the rows end: a task fetched is refreshed. With `heldBy`, only rows that lease holds
 * when locked are written (a refresh's). Rows are locked in ID order, as {@link upsertExpandedSql}
 * locks objects by type and ID: two statements writing the same rows (the objects every page
 * expands, a task a refresh's lost lease passed on) then wait for each other rather than deadlock.
 *
 * The kind of change (the rule of `fetchedChangeKind`) and the state before are judged against the
 * row the upsert replaces, locked, and kept in `change_kind` and `change_previous_state` for
 * `RETURNING`: a row read before the upsert could be stale by then (another worker committing the
 * same task, or inserting it first), and would give a change twice, or none.
 */
export function upsertTasksSql(
  t: SyncTables,
  params: {
    readonly tasks: string;
    readonly syncedAt: string;
    readonly run: string;
    readonly heldBy?: string;
  },
  guard = 'true',
): string {
  // Judged on the locked row: a lease taken by another since the statement's snapshot wins.
  const held = params.heldBy ? ` AND t.lease_token = ${params.heldBy}` : '';
  return `input AS (
    SELECT * FROM jsonb_to_recordset(${params.tasks}::jsonb)
      AS r(id text, state text, created_at timestamptz, updated_at timestamptz, deleted_at timestamptz, task jsonb)
    WHERE ${guard}),
  up AS (
    INSERT INTO ${t.tasks} AS t (id, state, created_at, updated_at, deleted_at, synced_at, seen_run, task, change_kind)
    SELECT id, state, created_at, updated_at, deleted_at, ${params.syncedAt}, ${params.run}, task,
      CASE WHEN deleted_at IS NOT NULL THEN 'deleted' ELSE 'created' END
    FROM input ORDER BY id
    ON CONFLICT (id) DO UPDATE SET state = excluded.state, created_at = excluded.created_at,
      updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, task = excluded.task,
      vanished = false, synced_at = excluded.synced_at, seen_run = excluded.seen_run,
      lease_token = NULL, leased_at = NULL, lease_until = NULL,
      change_kind = CASE
        WHEN excluded.deleted_at IS NOT NULL AND t.deleted_at IS NULL THEN 'deleted'
        WHEN t.task IS DISTINCT FROM excluded.task OR t.vanished
          OR (t.deleted_at IS NOT NULL AND excluded.deleted_at IS NULL) THEN 'changed'
      END,
      change_previous_state = t.state
    WHERE excluded.seen_run >= t.seen_run${held}
    RETURNING t.id, (xmax = 0) AS inserted, t.change_kind, t.change_previous_state)`;
}

/** The select list of what {@link upsertTasksSql} wrote: `new`, `changed` and `deleted` counts. */
export const UPSERT_COUNTS = `(SELECT count(*) FROM up WHERE inserted) AS new,
  (SELECT count(*) FROM up WHERE NOT inserted AND change_kind IS NOT NULL) AS changed,
  (SELECT count(*) FROM up WHERE change_kind = 'deleted') AS deleted`;

/** The common table expression that upserts the expanded objects of parameter `$expanded` when `guard` holds. */
export function upsertExpandedSql(
  t: SyncTables,
  params: { readonly expanded: string; readonly syncedAt: string },
  guard = 'true',
): string {
  return `ex AS (
    INSERT INTO ${t.expanded} (type, id, synced_at, object)
    SELECT type, id, ${params.syncedAt}, object
      FROM jsonb_to_recordset(${params.expanded}::jsonb) AS r(type text, id text, object jsonb)
      WHERE ${guard} ORDER BY type, id
    ON CONFLICT (type, id) DO UPDATE SET synced_at = excluded.synced_at, object = excluded.object)`;
}
