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
  readonly sortBy?: string;
}

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

const has = (list: readonly string[] | null | undefined, value: string | null | undefined) =>
  !list?.length || (value != null && list.includes(value));
const lacks = (list: readonly string[] | null | undefined, value: string | null | undefined) =>
  !list?.length || value == null || !list.includes(value);

function matches(task: WireTask, f: SearchFilter): boolean {
  const created = task.createdAt ? Date.parse(task.createdAt) : undefined;
  const query = f.query?.toLowerCase();
  const variant = variantOf(task);
  return (
    (f.includeDeleted || !task.deletedAt) &&
    has(f.taskStates, task.state) &&
    (!f.taskTypes?.length || f.taskTypes.some((t) => variant !== undefined && variant in t)) &&
    (!query || [task.displayName, task.description, task.id].some((s) => s?.toLowerCase().includes(query))) &&
    has(f.applicationIds, appOf(task)) &&
    lacks(f.excludeApplicationIds, appOf(task)) &&
    lacks(f.excludeIds, task.id) &&
    has(f.subjectIds, task.userId) &&
    has(f.openerIds, task.createdByUserId) &&
    has(
      f.refs?.map((r) => r.id),
      task.id,
    ) &&
    (!f.createdAfter || (created !== undefined && created > Date.parse(f.createdAfter))) &&
    (!f.createdBefore || (created !== undefined && created < Date.parse(f.createdBefore)))
  );
}

const byTicket = (a: WireTask, b: WireTask) => {
  const x = BigInt(a.numericId ?? 0);
  const y = BigInt(b.numericId ?? 0);
  return x < y ? -1 : x > y ? 1 : 0;
};
const byCreated = (a: WireTask, b: WireTask) => Date.parse(a.createdAt ?? '') - Date.parse(b.createdAt ?? '');

const SORTS: Record<string, (a: WireTask, b: WireTask) => number> = {
  TASK_SEARCH_SORT_BY_TICKET_ID: byTicket,
  TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID: (a, b) => byTicket(b, a),
  TASK_SEARCH_SORT_BY_CREATED_AT: byCreated,
  TASK_SEARCH_SORT_BY_REVERSE_CREATED_AT: (a, b) => byCreated(b, a),
};

/**
 * The stored tasks a search returns, in its order (stored order unless a supported `sortBy` is given).
 *
 * @group Testing kit
 */
export function searchTasks(tasks: readonly WireTask[], filter: SearchFilter): WireTask[] {
  const found = tasks.filter((task) => matches(task, filter));
  const sort = filter.sortBy ? SORTS[filter.sortBy] : undefined;
  return sort ? found.sort(sort) : found;
}
