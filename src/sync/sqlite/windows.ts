/**
 * The windows of a SQLite task copy: claimed under a cursor's lease, split and moved on, inside the
 * store's write transactions. A window is `free` (a lease may hold it) or `done`.
 *
 * @module
 */

import { FREE_SQL, notHeldSql } from '../../stores/lease.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import { pairPlan, splitPlan } from '../split-plan.ts';
import type { PageCommit, PageCommitResult, SyncLease, SyncRun, SyncWindow, WindowOrder } from '../store.ts';
import { COVERED_EDGE, type TaskRow } from '../store-rows.ts';

interface WindowRow {
  id: number;
  from_ms: number;
  to_ms: number;
  cursor_ms: number;
  query_from_ms: number;
  query_to_ms: number;
  page_token: string | null;
  acted_after_ms: number | null;
  sort_by: WindowOrder;
  edge: string | null;
  unordered?: number;
}

function windowOf(row: WindowRow): SyncWindow {
  return {
    id: row.id,
    from: row.from_ms,
    to: row.to_ms,
    cursor: row.cursor_ms,
    queryFrom: row.query_from_ms,
    queryTo: row.query_to_ms,
    token: row.page_token ?? undefined,
    actedAfter: row.acted_after_ms ?? undefined,
    order: row.sort_by,
    edge: row.edge ?? undefined,
    ...(row.unordered === 1 ? { unordered: true } : {}),
  };
}

/**
 * Takes, under `lease`, the free window with the most time left (or one `lease` holds already: a
 * commit that failed); call inside a write.
 */
export function claim(file: SqliteFile, run: SyncRun, lease: SyncLease, now: number): SyncWindow | undefined {
  const row = file
    .sql(
      `SELECT id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, page_token, acted_after_ms, sort_by, edge,
         (SELECT unordered FROM idgov_sync_runs r WHERE r.id = run_id) AS unordered FROM idgov_sync_windows
       WHERE run_id = ? AND state = 'free' AND (${notHeldSql('?', '?')} OR lease_token = ?)
       ORDER BY to_ms - cursor_ms DESC LIMIT 1`,
    )
    .get(run.id, now, now, lease.holder) as WindowRow | undefined;
  if (!row) return undefined;
  file
    .sql('UPDATE idgov_sync_windows SET lease_token = ?, leased_at = ?, lease_until = ? WHERE id = ?')
    .run(lease.holder, now, now + lease.ms, row.id);
  return windowOf(row);
}

/** Splits the window `splitPlan` picks, else pairs the burst `pairPlan` picks; call inside a write. */
export function split(
  file: SqliteFile,
  run: SyncRun,
  limits: { readonly minTasks: number; readonly minSpanMs: number; readonly pair?: boolean },
): boolean {
  const windows = (
    file
      .sql(
        `SELECT id, from_ms, to_ms, cursor_ms, pages, tasks, still, stalled, sort_by <> 'created' OR pair IS NOT NULL AS paired,
             EXISTS (SELECT 1 FROM idgov_sync_windows c WHERE c.parent = w.id AND c.pages = 0 AND c.state <> 'done') AS child_unpaged
           FROM idgov_sync_windows w WHERE run_id = ? AND state <> 'done'`,
      )
      .all(run.id) as Array<{
      id: number;
      from_ms: number;
      to_ms: number;
      cursor_ms: number;
      pages: number;
      tasks: number;
      still: number;
      stalled: number;
      paired: number;
      child_unpaged: number;
    }>
  ).map((w) => ({
    id: w.id,
    from: w.from_ms,
    to: w.to_ms,
    cursor: w.cursor_ms,
    pages: w.pages,
    tasks: w.tasks,
    still: w.still,
    stalled: w.stalled === 1,
    childUnpaged: w.child_unpaged === 1,
    paired: w.paired === 1,
  }));
  const plan = splitPlan(windows, limits.minTasks, limits.minSpanMs);
  if (!plan) {
    const burst = limits.pair ? pairPlan(windows, limits.minTasks) : undefined;
    if (burst === undefined) return false;
    pair(file, burst);
    return true;
  }
  file.sql('UPDATE idgov_sync_windows SET to_ms = ? WHERE id = ?').run(plan.at, plan.id);
  file
    .sql(
      `INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent, acted_after_ms)
       SELECT run_id, ?, ?, ?, ?, ?, id, acted_after_ms FROM idgov_sync_windows WHERE id = ?`,
    )
    .run(plan.at, plan.to, plan.at, plan.at, plan.to, plan.id);
  return true;
}

/**
 * Pages the burst of window `id` from both ends: a new window, free to claim, pages its query from
 * the last ticket ID down; the window itself starts its query again from the first, as its cursor
 * learns when it next commits. Both query the burst's instant alone (what follows it is split off
 * first, to page by creation time), so that they page the same tasks, and no more by tokens than
 * a burst needs.
 */
function pair(file: SqliteFile, id: number): void {
  file
    .sql(
      `INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent, acted_after_ms)
       SELECT run_id, cursor_ms + 1, to_ms, cursor_ms + 1, cursor_ms + 1, to_ms, id, acted_after_ms FROM idgov_sync_windows
       WHERE id = ? AND to_ms > cursor_ms + 1`,
    )
    .run(id);
  file.sql('UPDATE idgov_sync_windows SET to_ms = min(to_ms, cursor_ms + 1) WHERE id = ?').run(id);
  const other = file
    .sql(
      `INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent, acted_after_ms, sort_by, pair)
       SELECT run_id, cursor_ms, to_ms, cursor_ms, cursor_ms, to_ms, id, acted_after_ms, 'reverseTicket', id FROM idgov_sync_windows WHERE id = ?`,
    )
    .run(id).lastInsertRowid;
  file
    .sql(
      `UPDATE idgov_sync_windows SET sort_by = 'ticket', pair = ?, edge = NULL, page_token = NULL,
       query_from_ms = cursor_ms, query_to_ms = to_ms WHERE id = ?`,
    )
    .run(other, id);
}

/**
 * Whether `other`, the other end of a burst whose window is `id`, leaves this end done: it no
 * longer pages with this one (its service did not page by ticket ID as the edges need, so it pages
 * alone to its last page), or it found the burst covered (it paged to its last page, or met this one).
 */
function otherDone(id: number, other: { pair: number | null; edge: string | null } | undefined): boolean {
  return !other || other.pair !== id || other.edge === COVERED_EDGE;
}

/**
 * The service refused the ticket order of window `id`, an end of a burst: paired with `other`, the
 * ascending end pages the burst by creation time again from its cursor, and the descending end is
 * done; alone (its other end stopped, leaving it the burst), this end does. The one whose order
 * changes learns it at its next commit (this one, at once).
 */
function unpairRefused(
  file: SqliteFile,
  id: number,
  other: number | null,
  lease: SyncLease,
  now: number,
  to: number,
): Omit<PageCommitResult, 'counts'> {
  const partner =
    other === null
      ? undefined
      : (file.sql('SELECT pair, edge FROM idgov_sync_windows WHERE id = ?').get(other) as
          | { pair: number | null; edge: string | null }
          | undefined);
  const together = partner?.pair === id;
  // The other end found the burst covered already: nothing is left to page by creation time.
  if (together && partner?.edge === COVERED_EDGE) {
    file
      .sql(`UPDATE idgov_sync_windows SET state = 'done', page_token = NULL, ${FREE_SQL} WHERE id = ?`)
      .run(id);
    return { to, done: true, lost: false };
  }
  const byCreation = file.sql(
    `UPDATE idgov_sync_windows SET sort_by = 'created', pair = NULL, edge = NULL, page_token = NULL,
     query_from_ms = cursor_ms, query_to_ms = to_ms WHERE id = ?`,
  );
  if (!together) byCreation.run(id);
  else {
    for (const end of [id, other]) {
      const row = file.sql('SELECT sort_by FROM idgov_sync_windows WHERE id = ?').get(end) as {
        sort_by: WindowOrder;
      };
      if (row.sort_by === 'ticket') byCreation.run(end);
      else
        file
          .sql(`UPDATE idgov_sync_windows SET state = 'done', pair = NULL, ${FREE_SQL} WHERE id = ?`)
          .run(end);
    }
  }
  const row = file.sql('SELECT sort_by, state FROM idgov_sync_windows WHERE id = ?').get(id) as {
    sort_by: WindowOrder;
    state: string;
  };
  if (row.state === 'done') return { to, done: true, lost: false };
  file
    .sql('UPDATE idgov_sync_windows SET leased_at = ?, lease_until = ? WHERE id = ?')
    .run(now, now + lease.ms, id);
  return { to, done: false, lost: false, order: row.sort_by };
}

/**
 * Moves `window` on after a page, if `lease` still holds it, renewing the lease (or ending it with
 * the window); returns its end as it is now (a split may have moved it), whether it is done, and
 * whether the lease was lost (then nothing is written).
 */
export function commitWindow(
  file: SqliteFile,
  window: SyncWindow,
  page: PageCommit,
  lease: SyncLease,
  now: number,
): Omit<PageCommitResult, 'counts'> {
  const held = file
    .sql('SELECT to_ms, sort_by, pair FROM idgov_sync_windows WHERE id = ? AND lease_token = ?')
    .get(window.id, lease.holder) as { to_ms: number; sort_by: WindowOrder; pair: number | null } | undefined;
  if (!held) return { to: window.to, done: false, lost: true };
  const to = held.to_ms;
  if (held.sort_by !== (page.order ?? 'created')) {
    // Paired meanwhile (or back to one end): nothing of the page is written, as the query in the
    // new order fetches it again; it would be older than what the other end may have written since.
    file
      .sql('UPDATE idgov_sync_windows SET leased_at = ?, lease_until = ? WHERE id = ?')
      .run(now, now + lease.ms, window.id);
    return { to, done: false, lost: false, order: held.sort_by };
  }
  if (page.orderRefused) return unpairRefused(file, window.id, held.pair, lease, now, to);
  const paired = held.pair !== null && !page.unpair;
  const other = paired
    ? (file.sql('SELECT pair, edge FROM idgov_sync_windows WHERE id = ?').get(held.pair) as
        | { pair: number | null; edge: string | null }
        | undefined)
    : undefined;
  const covered = page.exhausted || (paired && page.met === true);
  const edge =
    covered && page.order !== undefined && page.order !== 'created' ? COVERED_EDGE : (page.edge ?? null);
  const done =
    covered || page.cursor > to || (paired && (page.handOver === true || otherDone(window.id, other)));
  file
    .sql(
      `UPDATE idgov_sync_windows SET cursor_ms = ?, query_from_ms = ?, query_to_ms = ?, page_token = ?,
       pages = pages + 1, tasks = tasks + ?, still = still + ?, stalled = ?, state = ?, pair = ?, edge = ?,
       leased_at = ?, lease_until = ? WHERE id = ?`,
    )
    .run(
      page.cursor,
      page.queryFrom,
      page.queryTo,
      done ? null : (page.token ?? null),
      page.tasks.length,
      page.moved ? 0 : page.tasks.length,
      (page.inBurst ?? !page.moved) ? 1 : 0,
      done ? 'done' : 'free',
      paired ? held.pair : null,
      edge,
      now,
      now + lease.ms,
      window.id,
    );
  if (done) file.sql(`UPDATE idgov_sync_windows SET ${FREE_SQL} WHERE id = ?`).run(window.id);
  return { to, done, lost: false, ...(other?.edge != null ? { otherEdge: other.edge } : {}) };
}

/**
 * The tasks of a page of window `id` that it writes (see `OWNED_SQL` of the PostgreSQL store, the
 * same rule): those created in its range as it stands now, and past an end only where no window of
 * the run goes on from there (one that begins or ends there and reaches further: not the other end
 * of its own burst, whose range is the burst's instant too). Queries reach a millisecond past their window, so a task at an edge
 * is fetched by both windows; were both to write it, the page committed last would win, though it
 * may be the one fetched first, and a split since the page was fetched leaves it tasks that are now
 * the new window's.
 */
export function ownedTasks(file: SqliteFile, id: number, tasks: readonly TaskRow[]): readonly TaskRow[] {
  const range = file
    .sql(
      `SELECT from_ms, to_ms,
         EXISTS (SELECT 1 FROM idgov_sync_windows n WHERE n.run_id = w.run_id AND n.to_ms = w.from_ms AND n.from_ms < w.from_ms) AS before,
         EXISTS (SELECT 1 FROM idgov_sync_windows n WHERE n.run_id = w.run_id AND n.from_ms = w.to_ms AND n.to_ms > w.to_ms) AS after
       FROM idgov_sync_windows w WHERE id = ?`,
    )
    .get(id) as { from_ms: number; to_ms: number; before: number; after: number };
  return tasks.filter((row) => {
    const at = Date.parse(row.createdAt ?? '');
    if (at < range.from_ms) return range.before === 0;
    if (at >= range.to_ms) return range.after === 0;
    return true;
  });
}
