/**
 * The leases of a SQLite task copy's work, beside claims and commits: renewed by a worker's
 * heartbeat, ended when it stops, and listed for a cursor that waits on them. Called inside the
 * store's write transactions (or reads).
 *
 * @module
 */
import { FREE_SQL, notHeldSql } from '../../stores/lease.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import type { HeldLease, SyncRun } from '../store.ts';

// The leased rows: windows of a run, and tasks claimed for its refresh.
const LEASED = ['idgov_sync_windows', 'idgov_tasks'] as const;
// `holders` as one JSON parameter: SQLite has no array parameter.
const HOLDERS = 'lease_token IN (SELECT value FROM json_each(?))';

/** Renews every lease `holders` hold for `ms` from `now`; the holders that still hold something. */
export function renewLeases(file: SqliteFile, holders: readonly string[], ms: number, now: number): string[] {
  const still = new Set<string>();
  for (const table of LEASED) {
    const rows = file
      .sql(`UPDATE ${table} SET leased_at = ?, lease_until = ? WHERE ${HOLDERS} RETURNING lease_token`)
      .all(now, now + ms, JSON.stringify(holders)) as Array<{ lease_token: string }>;
    for (const row of rows) still.add(row.lease_token);
  }
  return [...still];
}

/** Ends every lease `holders` hold. */
export function endLeases(file: SqliteFile, holders: readonly string[]): void {
  for (const table of LEASED) {
    file.sql(`UPDATE ${table} SET ${FREE_SQL} WHERE ${HOLDERS}`).run(JSON.stringify(holders));
  }
}

/**
 * The live leases on `run`'s work at `now`: one a holder, the latest ending (of its windows, and of
 * the tasks its refresh holds).
 */
export function heldLeases(file: SqliteFile, run: SyncRun, now: number): HeldLease[] {
  const live = `lease_token IS NOT NULL AND NOT ${notHeldSql('?', '?')}`;
  const tasks =
    'UNION ALL SELECT lease_token, lease_until, leased_at FROM idgov_tasks WHERE lease_token IS NOT NULL';
  const rows = file
    .sql(
      `SELECT lease_token AS holder, max(lease_until) AS until FROM (
         SELECT lease_token, lease_until, leased_at FROM idgov_sync_windows WHERE run_id = ? AND state <> 'done'
         ${tasks})
       WHERE ${live} GROUP BY lease_token ORDER BY lease_token`,
    )
    .all(run.id, now, now) as Array<{ holder: string; until: number }>;
  return rows.map((row) => ({
    holder: row.holder,
    until: Number(row.until),
    leftMs: Number(row.until) - now,
  }));
}
