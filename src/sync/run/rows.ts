import type { TaskView } from '../../../schemas/task-search.ts';
import { isoTime } from '../../internal/time.ts';
import type { ExpandedRow, TaskRow } from '../store.ts';

// The in-place checks add `$kind` to every "exactly one variant" object, as its last key; the copy
// keeps the JSON as the service sent it. Cut from the text rather than by a replacer function, which
// would cost as much as the rest of the copy's work: `,"$kind"` is never inside a string, where a
// quote is always escaped.
const KIND = /,"\$kind":"[^"\\]*"(?=\})/g;
const asSent = (task: object) => {
  const json = JSON.stringify(task);
  return json.includes('"$kind"') ? json.replace(KIND, '') : json;
};

const COPY_FORM =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** Whether the day of a time in the copy's form is one of its month's. */
function dayExists(value: string): boolean {
  const day = Number(value.slice(8, 10));
  if (day <= 28) return true;
  const daysInMonth = new Date(
    Date.UTC(Number(value.slice(0, 4)), Number(value.slice(5, 7)), 0),
  ).getUTCDate();
  return day <= daysInMonth;
}

/**
 * A time as the copy keeps it: ISO 8601 UTC with milliseconds, so that text order is time order;
 * undefined for one outside the years 0001 to 9999, which that form (and PostgreSQL) cannot hold.
 */
export function copyTime(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  // Already in the copy's form, as a service's times mostly are: nothing to parse (but a 30 February).
  if (COPY_FORM.test(value) && value[0] !== '0' && dayExists(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = isoTime(ms);
  return /^(?!0000)\d{4}-/.test(iso) ? iso : undefined;
}

// An ID neither store can hold as sent: a lone surrogate (SQLite and PostgreSQL write text as
// UTF-8, which has none) or U+0000 (PostgreSQL text refuses it). Changed, it would name no task of
// the service, and a refresh would mark the live task vanished.
const UNHOLDABLE_ID = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The copy's row of a view's task; undefined for a view without a task or an ID, and for a task
 * whose ID the copy cannot hold (told to `refuse`).
 */
export function taskRow(
  view: TaskView | null | undefined,
  refuse?: (id: string) => void,
): TaskRow | undefined {
  const task = view?.task;
  if (!task?.id) return undefined;
  if (UNHOLDABLE_ID.test(task.id)) {
    refuse?.(task.id);
    return undefined;
  }
  return {
    id: task.id,
    state: task.state ?? undefined,
    createdAt: copyTime(task.createdAt),
    updatedAt: copyTime(task.updatedAt),
    deletedAt: copyTime(task.deletedAt),
    json: asSent(task),
  };
}

/**
 * The copy's rows of a page's views, one a task ID: a service that repeats a task in a page (or
 * answers a page with two versions of it) gets the newest version kept, and a store's single
 * statement never meets one ID twice.
 */
export function taskRows(
  views: ReadonlyArray<TaskView | null | undefined> | null | undefined,
  refuse?: (id: string) => void,
): TaskRow[] {
  const byId = new Map<string, TaskRow>();
  for (const view of views ?? []) {
    const row = taskRow(view, refuse);
    if (!row) continue;
    const before = byId.get(row.id);
    if (!before?.updatedAt || (row.updatedAt !== undefined && row.updatedAt >= before.updatedAt))
      byId.set(row.id, row);
  }
  return [...byId.values()];
}

/** The copy's rows of a page's expanded objects: each by its `@type` and `id`, once. */
export function expandedRows(expanded: readonly unknown[] | null | undefined): ExpandedRow[] {
  const rows = new Map<string, ExpandedRow>();
  for (const entry of expanded ?? []) {
    const object = entry as Record<string, unknown> | null;
    const type = object?.['@type'];
    const id = object?.id;
    if (typeof type === 'string' && typeof id === 'string')
      rows.set(JSON.stringify([type, id]), { type, id, json: JSON.stringify(object) });
  }
  return [...rows.values()];
}
