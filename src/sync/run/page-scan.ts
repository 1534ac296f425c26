/**
 * What a page of a window's query in creation order shows of where the window stands.
 *
 * @module
 */
import type { TaskRow } from '../store.ts';

/** A task row's creation time (Unix ms), NaN when it has none. */
export const createdAt = (row: TaskRow) => (row.createdAt ? Date.parse(row.createdAt) : Number.NaN);

/** Where a page left its query, and whether it kept to the order and bounds a keyset needs. */
export interface PageScan {
  /** The creation time of its last task inside the query; the cursor when none moved it. */
  readonly last: number;
  /** How many of its tasks inside the query share that last instant. */
  readonly atLast: number;
  /** How many of its tasks lie inside the query. */
  readonly inQuery: number;
  /** Its tasks inside the query came in creation order. */
  readonly sorted: boolean;
  /** It held a task created before the query's start. */
  readonly before: boolean;
}

/**
 * Scans `tasks`, a page of the query `queryFrom..queryTo` of a window at `cursor`. Only tasks
 * inside the query move its cursor: one the service put on the page from outside it (a hostile or
 * broken answer) is kept, but must not end the window before its pages do.
 */
export function scanPage(
  tasks: readonly TaskRow[],
  { queryFrom, queryTo }: { readonly queryFrom: number; readonly queryTo: number },
  cursor: number,
): PageScan {
  let last = cursor;
  let atLast = 0;
  let inQuery = 0;
  let sorted = true;
  let before = false;
  let previous = Number.NEGATIVE_INFINITY;
  for (const row of tasks) {
    const at = createdAt(row);
    if (at < queryFrom - 1) before = true;
    if (!(at >= queryFrom - 1 && at <= queryTo + 1)) continue;
    inQuery += 1;
    if (at < previous) sorted = false;
    previous = at;
    if (at < last) continue;
    atLast = at === last ? atLast + 1 : 1;
    last = at;
  }
  return { last, atLast, inQuery, sorted, before };
}
