import type { ExpandedObject, TaskSearchResponse, TaskView } from '../../schemas/task-search.ts';

/**
 * TaskView fields that locate one related object.
 *
 * @group Task search
 */
export type SingleExpandedField =
  | 'accessReviewPath'
  | 'appPath'
  | 'appUserLastUsagePath'
  | 'appUserPath'
  | 'createdByUserPath'
  | 'identityUserPath'
  | 'principalResourcePath'
  | 'roleResourcePath'
  | 'scopeResourcePath'
  | 'userPath';

/**
 * TaskView fields that locate a list of related objects.
 *
 * @group Task search
 */
export type ListExpandedField =
  | 'approversPath'
  | 'entitlementsPath'
  | 'insightsPath'
  | 'resourceBindingsPath'
  | 'stepApproversPath';

/**
 * Any JSONPATH field of a TaskView.
 *
 * @group Task search
 */
export type ExpandedField = SingleExpandedField | ListExpandedField;

/**
 * What {@link resolveExpanded} returns for a field: one object (or undefined), or a list.
 *
 * @group Task search
 */
export type ExpandedResult<F extends ExpandedField> = F extends ListExpandedField
  ? ExpandedObject[]
  : ExpandedObject | undefined;

const LIST_FIELDS = new Set<string>([
  'approversPath',
  'entitlementsPath',
  'insightsPath',
  'resourceBindingsPath',
  'stepApproversPath',
]);

// Views handed out by task search remember their page's `expanded`, without being modified.
const pageOf = new WeakMap<TaskView, readonly ExpandedObject[]>();

/**
 * @internal Links each view of a page to the page's `expanded` array.
 *
 * @group Task search
 */
export function linkExpanded(page: TaskSearchResponse): void {
  const expanded = page.expanded;
  // Without expanded objects every path resolves to nothing, linked or not; WeakMap entries cost GC time.
  if (!expanded?.length) return;
  for (const view of page.list ?? []) pageOf.set(view, expanded);
}

// "$.expanded[3]" or "$.expanded[3,7]": indexes into the page's `expanded` array
// (guides/protocol.md, Wire conventions).
const JSONPATH = /^\$\.expanded\[(\d+(?:\s*,\s*\d+)*)\]$/;

/**
 * Resolves a TaskView's JSONPATH field (`appPath`, `userPath`, `entitlementsPath`, ...) to the
 * related objects the expand mask inlined. Works on views from `client.tasks.search()` directly;
 * for a page you parsed yourself, pass its `expanded`. Objects of a `@type` this SDK does not know
 * come back as they are.
 *
 * @returns For list fields (`approversPath`, `entitlementsPath`, `insightsPath`,
 * `resourceBindingsPath`, `stepApproversPath`) an array, possibly empty; for the others the object
 * or `undefined` when the path is empty or was not expanded.
 *
 * @example
 * for await (const view of client.tasks.search({ expandMask: { paths: ['app_id'] } })) {
 *   const app = resolveExpanded(view, 'appPath');
 *   console.log(app?.['@type'], app?.displayName);
 * }
 *
 * @group Task search
 */
export function resolveExpanded<F extends ExpandedField>(
  view: TaskView,
  field: F,
  expanded: readonly ExpandedObject[] | null | undefined = pageOf.get(view),
): ExpandedResult<F> {
  const path = view[field];
  const indexes = path ? JSONPATH.exec(path.trim())?.[1]?.split(',') : undefined;
  const objects = (indexes ?? [])
    .map((i) => expanded?.[Number(i)])
    .filter((o): o is ExpandedObject => o !== undefined);
  return (LIST_FIELDS.has(field) ? objects : objects[0]) as ExpandedResult<F>;
}
