import { boundKey, createdIndex, createdKey, forgetIndex, stretchOf } from './created-index.ts';
import type { WireTask } from './fake-data.ts';

/**
 * The subset of a search request the fake tenant evaluates on stored tasks.
 *
 * @group Testing kit
 */
export interface SearchFilter {
  readonly taskStates?: readonly string[] | null;
  readonly taskTypes?: readonly Record<string, unknown>[] | null;
  readonly query?: string;
  readonly applicationIds?: readonly string[] | null;
  readonly excludeApplicationIds?: readonly string[] | null;
  readonly excludeIds?: readonly string[] | null;
  readonly subjectIds?: readonly string[] | null;
  readonly openerIds?: readonly string[] | null;
  readonly refs?: readonly { id: string }[] | null;
  readonly createdAfter?: string | null;
  readonly createdBefore?: string | null;
  readonly includeDeleted?: boolean;
  /** Only tasks acted on (approved, denied, commented on, ...) after this time; a deletion is no action. */
  readonly includeActedAfter?: string | null;
  readonly sortBy?: string;
}

/**
 * When a task was last acted on, as ISO 8601 text; the fake tenant's own record, since a task says
 * nothing of it. Defaults to the task's `updatedAt`.
 *
 * @group Testing kit
 */
export type ActedAt = (task: WireTask) => string | null | undefined;

const lastUpdated: ActedAt = (task) => task.updatedAt;

/**
 * The variant name of a wire task type: the one key that is set.
 *
 * @group Testing kit
 */
export function variantOf(task: WireTask): string | undefined {
  const type = task.type as Record<string, unknown> | null | undefined;
  return type ? Object.keys(type).find((key) => type[key] != null) : undefined;
}

/**
 * The app a task targets, wherever its variant keeps it.
 *
 * @group Testing kit
 */
export function appOf(task: WireTask): string | undefined {
  const variant = variantOf(task);
  const body = variant ? ((task.type as Record<string, Record<string, unknown>>)[variant] ?? {}) : {};
  const instance = body.actionInstance as Record<string, Record<string, unknown> | undefined> | undefined;
  const ref = instance?.connectorResourceActionRef ?? instance?.connectorActionRef;
  return (body.appId ?? ref?.appId ?? (body.scopeRole as Record<string, unknown> | undefined)?.appId) as
    | string
    | undefined;
}

const has = (set: ReadonlySet<string> | undefined, value: string | null | undefined) =>
  !set || (value != null && set.has(value));
const lacks = (set: ReadonlySet<string> | undefined, value: string | null | undefined) =>
  !set || value == null || !set.has(value);
const setOf = (list: readonly string[] | null | undefined) => (list?.length ? new Set(list) : undefined);

/** A filter made ready once per search: lists as sets, bounds parsed, so each task costs little. */
function prepared(f: SearchFilter, actedAt: ActedAt) {
  return {
    actedAt,
    actedAfter: boundKey(f.includeActedAfter),
    includeDeleted: Boolean(f.includeDeleted),
    states: setOf(f.taskStates),
    types: f.taskTypes?.length ? f.taskTypes : undefined,
    query: f.query?.toLowerCase(),
    apps: setOf(f.applicationIds),
    notApps: setOf(f.excludeApplicationIds),
    notIds: setOf(f.excludeIds),
    subjects: setOf(f.subjectIds),
    openers: setOf(f.openerIds),
    refs: setOf(f.refs?.map((r) => r.id)),
    after: boundKey(f.createdAfter),
    before: boundKey(f.createdBefore),
  };
}

function matches(task: WireTask, f: ReturnType<typeof prepared>): boolean {
  if (!(f.includeDeleted || !task.deletedAt) || !has(f.refs, task.id) || !has(f.states, task.state))
    return false;
  if (f.after !== undefined || f.before !== undefined) {
    const created = createdKey(task);
    if (f.after !== undefined && (f.after === null || created === '' || !(created > f.after))) return false;
    if (f.before !== undefined && (f.before === null || created === '' || !(created < f.before)))
      return false;
  }
  if (f.actedAfter !== undefined) {
    const acted = boundKey(f.actedAt(task));
    if (f.actedAfter === null || !acted || !(acted > f.actedAfter)) return false;
  }
  const variant = f.types ? variantOf(task) : undefined;
  const query = f.query;
  return (
    (!f.types || f.types.some((t) => variant !== undefined && variant in t)) &&
    (!query || [task.displayName, task.description, task.id].some((s) => s?.toLowerCase().includes(query))) &&
    (!f.apps || has(f.apps, appOf(task))) &&
    (!f.notApps || lacks(f.notApps, appOf(task))) &&
    lacks(f.notIds, task.id) &&
    has(f.subjects, task.userId) &&
    has(f.openers, task.createdByUserId)
  );
}

const ticket = (task: WireTask) => BigInt(task.numericId ?? 0);

const ascending = <K extends string | bigint>(a: K, b: K) => (a < b ? -1 : a > b ? 1 : 0);

// Each order as a key, computed once per task of a search, and a direction.
const SORTS: Record<string, { key: (task: WireTask) => string | bigint; reverse: boolean }> = {
  TASK_SEARCH_SORT_BY_TICKET_ID: { key: ticket, reverse: false },
  TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID: { key: ticket, reverse: true },
  TASK_SEARCH_SORT_BY_CREATED_AT: { key: createdKey, reverse: false },
  TASK_SEARCH_SORT_BY_REVERSE_CREATED_AT: { key: createdKey, reverse: true },
};

/**
 * The stored tasks a search returns, in its order (stored order unless a supported `sortBy` is given);
 * `actedAt` says when a task was last acted on, for `includeActedAfter`.
 * A search by creation time looks only at the stretch of time asked for, found by binary search
 * when the tasks are stored in creation order; to move a task in time, replace it
 * (`tasks[i] = { ...task, createdAt }`): a `createdAt` changed in place is seen only by a search of
 * its old stretch.
 *
 * @group Testing kit
 */
export function searchTasks(
  tasks: readonly WireTask[],
  filter: SearchFilter,
  actedAt: ActedAt = lastUpdated,
): WireTask[] {
  const ready = prepared(filter, actedAt);
  const sort = filter.sortBy ? SORTS[filter.sortBy] : undefined;
  const index = ready.after !== undefined || ready.before !== undefined ? createdIndex(tasks) : undefined;
  if (index?.sorted) {
    // Only the stretch of creation time asked for is looked at.
    const { from, to } = stretchOf(index, ready.after, ready.before);
    const stretch = tasks.slice(from, to);
    // A task moved in time in place, where the search looks: make the index again.
    if (stretch.some((task, i) => task.createdAt !== index.createdAt[from + i])) {
      forgetIndex(tasks);
      return searchTasks(tasks, filter, actedAt);
    }
    const found = stretch.filter((task) => matches(task, ready));
    if (sort?.key === createdKey && !sort.reverse) return found;
    return sort ? sorted(found, sort) : found;
  }
  const found = tasks.filter((task) => matches(task, ready));
  return sort ? sorted(found, sort) : found;
}

/**
 * One page of a search: the tasks at `offset` to `offset + size` of what {@link searchTasks}
 * returns, and whether more follow. A search in creation order by creation time looks only as far
 * as its page, so a page of a window of a large tenant costs what the page costs, as the service's
 * would; others are searched whole.
 *
 * @group Testing kit
 */
export function searchPage(
  tasks: readonly WireTask[],
  filter: SearchFilter,
  offset: number,
  size: number,
  actedAt: ActedAt = lastUpdated,
): { readonly page: WireTask[]; readonly more: boolean } {
  const ready = prepared(filter, actedAt);
  const sort = filter.sortBy ? SORTS[filter.sortBy] : undefined;
  const inCreationOrder = !sort || (sort.key === createdKey && !sort.reverse);
  const index =
    inCreationOrder && (ready.after !== undefined || ready.before !== undefined)
      ? createdIndex(tasks)
      : undefined;
  if (!index?.sorted) {
    const found = searchTasks(tasks, filter, actedAt);
    return { page: found.slice(offset, offset + size), more: offset + size < found.length };
  }
  const { from, to } = stretchOf(index, ready.after, ready.before);
  const page: WireTask[] = [];
  let skipped = 0;
  for (let i = from; i < to; i++) {
    const task = tasks[i] as WireTask;
    if (task.createdAt !== index.createdAt[i]) {
      forgetIndex(tasks);
      return searchPage(tasks, filter, offset, size, actedAt);
    }
    if (!matches(task, ready)) continue;
    if (skipped < offset) skipped += 1;
    else if (page.length === size) return { page, more: true };
    else page.push(task);
  }
  return { page, more: false };
}

/** `found` in the order of `sort`; stable, as Array.prototype.sort is: tasks with one key keep their stored order. */
function sorted(found: WireTask[], sort: (typeof SORTS)[string]): WireTask[] {
  const keys = found.map(sort.key);
  const order = keys.map((_, i) => i);
  order.sort((a, b) => {
    const x = keys[a] as string | bigint;
    const y = keys[b] as string | bigint;
    return (sort.reverse ? ascending(y, x) : ascending(x, y)) || a - b;
  });
  return order.map((i) => found[i] as WireTask);
}
