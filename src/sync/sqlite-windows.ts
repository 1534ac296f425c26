/**
 * The windows of a SQLite task copy: claimed, split and moved on, inside the store's write
 * transactions. One process holds the copy at a time, so a window is `free`, `active` (being
 * paged by this process) or `done`.
 *
 * @module
 */
import type { SqliteFile } from '../stores/sqlite-file.ts';
import type { SyncRun, SyncStore, SyncWindow } from './store.ts';
import { splitPlan } from './windows.ts';

interface WindowRow {
  id: number;
  from_ms: number;
  to_ms: number;
  cursor_ms: number;
  query_from_ms: number;
  query_to_ms: number;
  page_token: string | null;
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
  };
}

/** Takes the free window with the most time left; call inside a write. */
export function claim(file: SqliteFile, run: SyncRun): SyncWindow | undefined {
  const row = file
    .sql(
      "SELECT id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, page_token FROM idgov_sync_windows WHERE run_id = ? AND state = 'free' ORDER BY to_ms - cursor_ms DESC LIMIT 1",
    )
    .get(run.id) as WindowRow | undefined;
  if (!row) return undefined;
  file.sql("UPDATE idgov_sync_windows SET state = 'active' WHERE id = ?").run(row.id);
  return windowOf(row);
}

/** Splits the window with the most work left (`splitPlan`); call inside a write. */
export function split(
  file: SqliteFile,
  run: SyncRun,
  limits: { readonly minTasks: number; readonly minSpanMs: number },
): boolean {
  const windows = (
    file
      .sql(
        `SELECT id, from_ms, to_ms, cursor_ms, pages, tasks, still, stalled,
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
  }));
  const plan = splitPlan(windows, limits.minTasks, limits.minSpanMs);
  if (!plan) return false;
  file.sql('UPDATE idgov_sync_windows SET to_ms = ? WHERE id = ?').run(plan.at, plan.id);
  file
    .sql(
      'INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(run.id, plan.at, plan.to, plan.at, plan.at, plan.to, plan.id);
  return true;
}

/** Moves `window` on after a page; returns its end as it is now (a split may have moved it) and whether it is done. */
export function commitWindow(
  file: SqliteFile,
  window: SyncWindow,
  page: Parameters<SyncStore['commitPage']>[2],
): { readonly to: number; readonly done: boolean } {
  const { to_ms: to } = file.sql('SELECT to_ms FROM idgov_sync_windows WHERE id = ?').get(window.id) as {
    to_ms: number;
  };
  const done = page.exhausted || page.cursor > to;
  file
    .sql(
      `UPDATE idgov_sync_windows SET cursor_ms = ?, query_from_ms = ?, query_to_ms = ?, page_token = ?,
       pages = pages + 1, tasks = tasks + ?, still = still + ?, stalled = ?, state = ? WHERE id = ?`,
    )
    .run(
      page.cursor,
      page.queryFrom,
      page.queryTo,
      done ? null : (page.token ?? null),
      page.tasks.length,
      page.moved ? 0 : page.tasks.length,
      page.moved ? 0 : 1,
      done ? 'done' : 'active',
      window.id,
    );
  return { to, done };
}
