/**
 * The windows of a PostgreSQL task copy, shared by every worker: claimed with `FOR UPDATE SKIP
 * LOCKED` under leases timed by the server's clock, split without locks (only if the window is
 * still as read), and moved on with each page in one statement.
 *
 * @module
 */
import { isoTime } from '../../internal/time.ts';
import { notHeldSql } from '../../stores/lease.ts';
import { splitPlan } from '../split-plan.ts';
import type { PageCommit, PageCommitResult, SyncLease, SyncRun, SyncWindow } from '../store.ts';
import { AFTER_SEQ, feedOnSql, fetchedChangesSql, recordChangesSql } from './changes.ts';
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

const WINDOW_COLUMNS =
  'id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, page_token, acted_after_ms';

interface WindowRow {
  id: string;
  from_ms: string;
  to_ms: string;
  cursor_ms: string;
  query_from_ms: string;
  query_to_ms: string;
  page_token: string | null;
  acted_after_ms: string | null;
  unordered?: boolean;
}

// pg returns bigint as text; every number here is a Unix ms or an identity, far below 2^53.
const windowOf = (row: WindowRow): SyncWindow => ({
  id: Number(row.id),
  from: Number(row.from_ms),
  to: Number(row.to_ms),
  cursor: Number(row.cursor_ms),
  queryFrom: Number(row.query_from_ms),
  queryTo: Number(row.query_to_ms),
  token: row.page_token ?? undefined,
  actedAfter: row.acted_after_ms === null ? undefined : Number(row.acted_after_ms),
  ...(row.unordered ? { unordered: true } : {}),
});

/** Takes, under `lease`, the free window with the most time left, or one `lease` holds already. */
export async function claimWindow(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  lease: SyncLease,
): Promise<SyncWindow | undefined> {
  const { rows } = await query<WindowRow>(
    'claiming a window',
    `UPDATE ${t.windows} SET lease_token = $2, leased_at = ${NOW}, lease_until = ${NOW} + $3
     WHERE id = (SELECT id FROM ${t.windows}
                 WHERE run_id = $1 AND state = 'free' AND (${notHeldSql(NOW)} OR lease_token = $2)
                 ORDER BY to_ms - cursor_ms DESC LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${WINDOW_COLUMNS}, (SELECT unordered FROM ${t.runs} WHERE id = $1) AS unordered`,
    [run.id, lease.holder, lease.ms],
  );
  return rows[0] && windowOf(rows[0]);
}

/** Splits the window `splitPlan` picks, if it is still as read. */
export async function splitLargest(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  limits: { readonly minTasks: number; readonly minSpanMs: number },
): Promise<boolean> {
  const { rows } = await query<{
    id: string;
    from_ms: string;
    to_ms: string;
    cursor_ms: string;
    pages: number;
    tasks: number;
    still: number;
    stalled: boolean;
    child_unpaged: boolean;
  }>(
    'reading windows',
    `SELECT id, from_ms, to_ms, cursor_ms, pages, tasks, still, stalled,
       EXISTS (SELECT 1 FROM ${t.windows} c WHERE c.parent = w.id AND c.pages = 0 AND c.state <> 'done') AS child_unpaged
     FROM ${t.windows} w WHERE run_id = $1 AND state <> 'done'`,
    [run.id],
  );
  const plan = splitPlan(
    rows.map((w) => ({
      id: Number(w.id),
      from: Number(w.from_ms),
      to: Number(w.to_ms),
      cursor: Number(w.cursor_ms),
      pages: w.pages,
      tasks: w.tasks,
      still: w.still,
      stalled: w.stalled,
      childUnpaged: w.child_unpaged,
    })),
    limits.minTasks,
    limits.minSpanMs,
  );
  if (!plan) return false;
  // Only if the window is as read: another worker may have split it, or paged past the midpoint,
  // since. Then nothing changes here, and the caller looks again.
  await query(
    'splitting a window',
    `WITH s AS (UPDATE ${t.windows} SET to_ms = $2
                WHERE id = $1 AND to_ms = $3 AND state = 'free' AND cursor_ms < $2 RETURNING run_id, id, acted_after_ms)
     INSERT INTO ${t.windows} (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent, acted_after_ms)
     SELECT run_id, $2, $3, $2, $2, $3, id, acted_after_ms FROM s`,
    [plan.id, plan.at, plan.to],
  );
  return true;
}

/**
 * The common table expression `own`: the range of the window the commit's `w` moved on, as it
 * stands now, and whether a window of the run goes on from either end. The rule of the SQLite
 * store's `ownedTasks`: a window writes the tasks created in its range, and past an end only where
 * no window goes on from there. Queries reach a millisecond past their window, so a task at an
 * edge is fetched by both windows; were both to write it, the page committed last would win,
 * though it may be the one fetched first, and a split since the page was fetched leaves it tasks
 * that are now the new window's.
 */
const OWNED_SQL = (t: SyncTables) => `own AS (
    SELECT from_ms, to_ms,
      EXISTS (SELECT 1 FROM ${t.windows} n WHERE n.run_id = w.run_id AND n.to_ms = w.from_ms AND n.from_ms < w.from_ms) AS before,
      EXISTS (SELECT 1 FROM ${t.windows} n WHERE n.run_id = w.run_id AND n.from_ms = w.to_ms AND n.to_ms > w.to_ms) AS after
    FROM w)`;

// A task of the page (`r`) that the window owns; the time in Unix ms, exactly (`extract` is numeric).
const OWNED_GUARD = `EXISTS (SELECT 1 FROM own WHERE r.created_at IS NULL
    OR (floor(extract(epoch FROM r.created_at) * 1000) >= own.from_ms OR NOT own.before)
       AND (floor(extract(epoch FROM r.created_at) * 1000) < own.to_ms OR NOT own.after))`;

/**
 * Commits a page with its window's progress and its changes in one statement, if `lease` still
 * holds the window; renews the lease, or ends it with the window. `feedAll`: the feed records the
 * first copy too.
 */
export async function commitPage(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  window: SyncWindow,
  page: PageCommit,
  lease: SyncLease,
  feedAll: boolean,
): Promise<PageCommitResult> {
  const done = '($6::boolean OR $3::bigint > to_ms)';
  const { rows } = await query<{
    to_ms: string | null;
    state: string | null;
    unordered: boolean | null;
    new: string;
    changed: string;
    deleted: string;
  }>(
    'committing a page',
    `WITH w AS (
       UPDATE ${t.windows} SET cursor_ms = $3, query_from_ms = $4, query_to_ms = $5,
         page_token = CASE WHEN ${done} THEN NULL ELSE $7 END,
         pages = pages + 1, tasks = tasks + $8, still = still + $9, stalled = $10,
         state = CASE WHEN ${done} THEN 'done' ELSE 'free' END,
         lease_token = CASE WHEN ${done} THEN NULL ELSE lease_token END,
         leased_at = CASE WHEN ${done} THEN NULL ELSE ${NOW} END,
         lease_until = CASE WHEN ${done} THEN NULL ELSE ${NOW} + $11 END
       WHERE id = $1 AND lease_token = $2
       RETURNING id, run_id, from_ms, to_ms, state),
     ${OWNED_SQL(t)},
     ${upsertTasksSql(t, { tasks: '$12', syncedAt: '$14::timestamptz', run: '$15::bigint' }, OWNED_GUARD)},
     ${fetchedChangesSql(feedOnSql(t, '$17'))},
     ${recordChangesSql(t, ['fetched'], '$14::timestamptz')},
     ${upsertExpandedSql(t, { expanded: '$13', syncedAt: '$14::timestamptz' }, `EXISTS (SELECT 1 FROM w) AND ${AFTER_SEQ}`)},
     cut AS (UPDATE ${t.runs} SET acted_after_ms = CASE WHEN $16::boolean THEN NULL ELSE acted_after_ms END,
               unordered = unordered OR $18::boolean
             WHERE id = $15 AND ($16::boolean OR ($18::boolean AND NOT unordered)) AND EXISTS (SELECT 1 FROM w))
     SELECT (SELECT to_ms FROM w) AS to_ms, (SELECT state FROM w) AS state,
       (SELECT unordered FROM ${t.runs} WHERE id = $15) AS unordered, ${UPSERT_COUNTS}`,
    [
      window.id,
      lease.holder,
      page.cursor,
      page.queryFrom,
      page.queryTo,
      page.exhausted,
      page.token ?? null,
      page.tasks.length,
      page.moved ? 0 : page.tasks.length,
      page.inBurst ?? !page.moved,
      lease.ms,
      tasksParameter(page.tasks),
      expandedParameter(page.expanded),
      isoTime(page.syncedAt),
      run.id,
      page.actedCut === true,
      feedAll,
      page.unordered === true,
    ],
  );
  const row = rows[0];
  if (!row || row.state === null) {
    return { to: window.to, done: false, lost: true, counts: { new: 0, changed: 0, deleted: 0 } };
  }
  return {
    to: Number(row.to_ms),
    done: row.state === 'done',
    lost: false,
    counts: counted(row),
    ...(row.unordered ? { unordered: true } : {}),
  };
}
