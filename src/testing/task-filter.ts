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

/**
 * A task's creation time as text that sorts as time does: ISO 8601 UTC with milliseconds, as the
 * fake data writes it (compared as it is: a search of a large tenant parses nothing), or another
 * form made so; '' when missing or not a time.
 */
function createdKey(task: WireTask): string {
  const at = task.createdAt;
  if (!at) return '';
  if (at.length === 24 && at.charCodeAt(23) === 90 /* Z */ && at.charCodeAt(10) === 84 /* T */) return at;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/** A bound of a search as a {@link createdKey}; undefined when absent, null when it is not a time (nothing matches). */
function boundKey(at: string | null | undefined): string | null | undefined {
  if (!at) return undefined;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
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
    // Only the stretch of creation time asked for is looked at: a window of a large tenant costs
    // what its own tasks cost, which is what a sync's pages measure.
    const from = ready.after ? firstAbove(index.keys, ready.after) : 0;
    const to = ready.before ? firstAtOrAbove(index.keys, ready.before) : tasks.length;
    const stretch = tasks.slice(from, Math.max(from, to));
    // A task moved in time in place, where the search looks: make the index again.
    if (stretch.some((task, i) => task.createdAt !== index.createdAt[from + i])) {
      indexes.delete(tasks);
      return searchTasks(tasks, filter, actedAt);
    }
    const found = stretch.filter((task) => matches(task, ready));
    if (sort?.key === createdKey && !sort.reverse) return found;
    return sort ? sorted(found, sort) : found;
  }
  const found = tasks.filter((task) => matches(task, ready));
  return sort ? sorted(found, sort) : found;
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

/** The stored tasks' creation keys, and whether the tasks are stored in creation order. */
interface CreatedIndex {
  readonly tasks: readonly WireTask[];
  readonly createdAt: ReadonlyArray<string | null | undefined>;
  readonly keys: readonly string[];
  readonly sorted: boolean;
}

const indexes = new WeakMap<readonly WireTask[], CreatedIndex>();

/**
 * The creation index of `tasks`, made again when a task was added, removed or replaced (checked by
 * identity, cheap next to parsing): tests change tasks freely.
 */
function createdIndex(tasks: readonly WireTask[]): CreatedIndex {
  const known = indexes.get(tasks);
  if (known && unchanged(tasks, known)) return known;
  const keys = tasks.map(createdKey);
  const index: CreatedIndex = {
    tasks: [...tasks],
    createdAt: tasks.map((task) => task.createdAt),
    keys,
    // Tasks without a creation time ('') cannot be placed in a stretch of time: scan instead.
    sorted: keys.every((key, i) => key !== '' && (i === 0 || (keys[i - 1] as string) <= key)),
  };
  indexes.set(tasks, index);
  return index;
}

/**
 * Whether `tasks` are still the ones `index` was made of: the same objects, in the same places. A
 * `createdAt` changed in place is seen where a search looks (see {@link searchTasks}); reading every
 * task's would cost a large tenant more than the search.
 */
function unchanged(tasks: readonly WireTask[], index: CreatedIndex): boolean {
  if (tasks.length !== index.tasks.length) return false;
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i] as WireTask;
    if (task !== index.tasks[i]) return false;
  }
  return true;
}

/** The first position whose key is above `bound` (keys ascending). */
function firstAbove(keys: readonly string[], bound: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) > bound) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The first position whose key is at or above `bound` (keys ascending). */
function firstAtOrAbove(keys: readonly string[], bound: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) >= bound) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
