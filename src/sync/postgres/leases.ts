/**
 * The leases of a PostgreSQL task copy's work, beside claims and commits, by the server's clock:
 * renewed by each worker's heartbeat, ended when it stops, and listed for a worker that waits on
 * them.
 *
 * @module
 */
import { FREE_SQL, notHeldSql } from '../../stores/lease.ts';
import { NOW } from './rows.ts';
import type { SyncTables } from './schema.ts';

/**
 * The rows of `table` that the holders in `$1` (text[]) lease, locked in ID order: the order a
 * refresh's commit locks them in (`leasedRowsLockedSql`), so that a heartbeat renewing a lease
 * while its holder commits waits for the commit rather than deadlock with it.
 */
const heldRows = (table: string) =>
  `id IN (SELECT id FROM ${table} WHERE lease_token = ANY($1::text[]) ORDER BY id FOR UPDATE)`;

/** Renews every lease of the holders in `$1` (text[]) for `$2` ms; selects the holders still holding (`holder`). */
export function renewLeasesSql(t: SyncTables): string {
  const renew = (table: string) =>
    `UPDATE ${table} SET leased_at = ${NOW}, lease_until = ${NOW} + $2 WHERE ${heldRows(table)} RETURNING lease_token`;
  return `WITH w AS (${renew(t.windows)}), k AS (${renew(t.tasks)})
    SELECT lease_token AS holder FROM w UNION SELECT lease_token FROM k`;
}

/** Ends every lease of the holders in `$1` (text[]). */
export function endLeasesSql(t: SyncTables): string {
  return `WITH w AS (UPDATE ${t.windows} SET ${FREE_SQL} WHERE ${heldRows(t.windows)})
    UPDATE ${t.tasks} SET ${FREE_SQL} WHERE ${heldRows(t.tasks)}`;
}

/**
 * The common table expression `held`: the tasks lease `holder` (an SQL expression) holds, locked
 * in ID order before a refresh's commit writes any of them (see {@link renewLeasesSql}).
 * {@link AFTER_HELD} makes a write wait for it.
 */
export const leasedRowsLockedSql = (t: SyncTables, holder: string) =>
  `held AS (SELECT id FROM ${t.tasks} WHERE lease_token = ${holder} ORDER BY id FOR UPDATE)`;

/** A condition, always true, that makes a write of a refresh's commit wait for `held`'s locks. */
export const AFTER_HELD = '(SELECT count(*) FROM held) >= 0';

/**
 * A subquery: the live leases on the work of the run in placeholder `run`, as a JSON array of
 * `{ holder, until }`, one a holder (the latest ending); null when none. Tasks are leased only by a
 * run's refresh, once its windows are done: until then they are not looked at, since on a copy being
 * filled the planner, knowing nothing yet of the column, would read every task for them.
 */
export function heldLeasesSql(t: SyncTables, run: string): string {
  const live = `lease_token IS NOT NULL AND NOT ${notHeldSql(NOW)}`;
  const tasks = `UNION ALL SELECT lease_token, lease_until, leased_at FROM ${t.tasks} WHERE ${live}
        AND NOT EXISTS (SELECT 1 FROM ${t.windows} WHERE run_id = ${run} AND state <> 'done')`;
  return `(SELECT json_agg(json_build_object('holder', holder, 'until', until, 'left', until - ${NOW}) ORDER BY holder) FROM (
      SELECT lease_token AS holder, max(lease_until) AS until FROM (
        SELECT lease_token, lease_until, leased_at FROM ${t.windows} WHERE run_id = ${run} AND state <> 'done' AND ${live}
        ${tasks}) l
      GROUP BY lease_token) h)`;
}
