import {
  EXPANDED_SCHEMAS,
  type ExpandedTypeMap,
  type ExpandedTypeName,
  expandedTypeName,
  type UnknownExpanded,
} from '../../schemas/expanded.ts';
import type { ExpandedEntry, TaskSearchResponse, TaskView } from '../../schemas/task-search.ts';
import { checkResponse } from '../core/validation.ts';

/**
 * For each JSONPATH field of a TaskView, the type of the objects it usually locates; `undefined`
 * where the service publishes no type. Usual, not promised: the object's `@type` decides.
 */
const EXPECTED = {
  accessReviewPath: 'AccessReview',
  appPath: 'App',
  appUserLastUsagePath: undefined,
  appUserPath: 'AppUser',
  createdByUserPath: 'User',
  identityUserPath: 'User',
  principalResourcePath: 'AppResource',
  roleResourcePath: 'AppResource',
  scopeResourcePath: 'AppResource',
  userPath: 'User',
  approversPath: 'User',
  entitlementsPath: 'AppEntitlement',
  insightsPath: undefined,
  resourceBindingsPath: undefined,
  stepApproversPath: 'User',
} as const satisfies Record<string, ExpandedTypeName | undefined>;

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
export type ExpandedField = keyof typeof EXPECTED;

/**
 * TaskView fields that locate one related object.
 *
 * @group Task search
 */
export type SingleExpandedField = Exclude<ExpandedField, ListExpandedField>;

/**
 * The type an expanded field resolves to: the type the field usually locates (narrow on `@type`
 * to reach it), or an object of another type as it came.
 *
 * @group Task search
 */
export type ExpectedExpanded<F extends ExpandedField> = (typeof EXPECTED)[F] extends ExpandedTypeName
  ? ExpandedTypeMap[(typeof EXPECTED)[F]] | UnknownExpanded
  : UnknownExpanded;

/**
 * What {@link resolveExpanded} returns for a field: one object (or undefined), or a list.
 *
 * @group Task search
 */
export type ExpandedResult<F extends ExpandedField> = F extends ListExpandedField
  ? ExpectedExpanded<F>[]
  : ExpectedExpanded<F> | undefined;

const LIST_FIELDS: Record<ListExpandedField, true> = {
  approversPath: true,
  entitlementsPath: true,
  insightsPath: true,
  resourceBindingsPath: true,
  stepApproversPath: true,
};

// Views handed out by task search carry their page's `expanded` under this symbol, defined not
// enumerable: JSON.stringify, spreads, Object.keys, equality checks and console.log do not see it.
// Not a WeakMap: V8 keeps a young key's value alive through scavenges, so linking 100 views cost a
// broad page 0.2-0.3 ms of CPU; the symbol costs 0.02 ms.
const PAGE_EXPANDED = Symbol('idgov.expanded');
type Linked = { readonly [PAGE_EXPANDED]?: readonly (ExpandedEntry | null)[] };
// Objects already checked against their type: each is checked once, on first resolution.
const checked = new WeakSet<object>();

/**
 * @internal Links each view of a page to the page's `expanded` array.
 */
export function linkExpanded(page: TaskSearchResponse): void {
  const expanded = page.expanded;
  // Without expanded objects every path resolves to nothing, linked or not.
  if (!expanded?.length) return;
  // One descriptor for the page: defining with a shared one is as cheap as an assignment.
  const link: PropertyDescriptor = { value: expanded, configurable: true };
  for (const view of page.list ?? []) if (view) Object.defineProperty(view, PAGE_EXPANDED, link);
}

// "$.expanded[3]" or "$.expanded[ 3, 7 ]": indexes into the page's `expanded` array
// (guides/protocol.md, Wire conventions).
const JSONPATH = /^\$\.expanded\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]$/;

/** The object as JSON for an error's `rawBody`; a value too deep to serialise is said to be. */
function serialised(entry: ExpandedEntry): string {
  try {
    return JSON.stringify(entry);
  } catch {
    return '[an object too deeply nested to serialise]';
  }
}

/** Checks an object of a known `@type` against its type, once; others are returned as they are. */
function typed(entry: ExpandedEntry, index: number): unknown {
  if (checked.has(entry)) return entry;
  const name = expandedTypeName(entry);
  if (name) {
    const what = `expanded[${index}] (${name}) object of the task search`;
    checkResponse(EXPANDED_SCHEMAS[name], entry, what, () => serialised(entry));
  }
  checked.add(entry);
  return entry;
}

/**
 * Resolves a TaskView's JSONPATH field (`appPath`, `userPath`, `entitlementsPath`, ...) to the
 * related objects the expand mask inlined, typed: `resolveExpanded(view, 'appPath')` is an
 * {@link App} when its `@type` says so (narrow on `@type`), and an object of a type this SDK does
 * not know comes back as it is ({@link UnknownExpanded}). An object of a known type is checked
 * against that type the first time it is resolved (a wrong field type throws
 * `ResponseValidationError` naming it); pages themselves check only `@type`, so paging never pays
 * for objects nobody reads.
 *
 * Works on views from `client.tasks.search()` directly; for a page you parsed yourself, pass its
 * `expanded`.
 *
 * @returns For list fields (`approversPath`, `entitlementsPath`, `insightsPath`,
 * `resourceBindingsPath`, `stepApproversPath`) an array, possibly empty; for the others the object
 * or `undefined` when the path is empty or was not expanded.
 *
 * @example
 * for await (const view of client.tasks.search({ expandMask: { paths: ['app_id'] } })) {
 *   const app = resolveExpanded(view, 'appPath');
 *   if (app?.['@type'] === ExpandedType.App) console.log(app.displayName ?? '-');
 * }
 *
 * @group Task search
 */
export function resolveExpanded<F extends ExpandedField>(
  view: TaskView,
  field: F,
  expanded: readonly (ExpandedEntry | null)[] | null | undefined = (view as Linked)[PAGE_EXPANDED],
): ExpandedResult<F> {
  const path = view[field];
  const indexes = path ? JSONPATH.exec(path.trim())?.[1]?.split(',') : undefined;
  const objects: unknown[] = [];
  for (const text of indexes ?? []) {
    const index = Number(text);
    const entry = expanded?.[index];
    if (entry) objects.push(typed(entry, index));
  }
  return (field in LIST_FIELDS ? objects : objects[0]) as ExpandedResult<F>;
}
