import {
  EXPANDED_SCHEMAS,
  type ExpandedTypeMap,
  type ExpandedTypeName,
  expandedTypeName,
  type UnknownExpanded,
} from '../../schemas/expanded.ts';
import type { ExpandedEntry, TaskSearchResponse, TaskView } from '../../schemas/task-search.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { checkResponse } from '../core/validation/validation.ts';

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

/** The expand mask path that fills each field. */
const EXPAND_PATH: Record<keyof typeof EXPECTED, string> = {
  accessReviewPath: 'access_review_id',
  appPath: 'app_id',
  appUserLastUsagePath: 'app_user_last_usage',
  appUserPath: 'app_user_id',
  createdByUserPath: 'created_by_user_id',
  identityUserPath: 'identity_user_id',
  principalResourcePath: 'resource',
  roleResourcePath: 'scope_role_resources',
  scopeResourcePath: 'scope_role_resources',
  userPath: 'user_id',
  approversPath: 'approver_ids',
  entitlementsPath: 'app_entitlement_ids',
  insightsPath: 'insight_ids',
  resourceBindingsPath: 'entitlement_scope_bindings',
  stepApproversPath: 'step_approver_ids',
};

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

/**
 * @internal Warnings about resolving that cannot work, each said once per client (or, for views of
 * no client, once per process): a path the search did not expand, a view copied off its page.
 */
export class ExpandNotices {
  readonly #logger: Logger;
  readonly #said = new Set<string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Logs `message` at `warn` the first time `key` is seen. */
  once(key: string, message: string): void {
    if (this.#said.has(key)) return;
    this.#said.add(key);
    this.#logger.warn(message);
  }
}

let processNotices: ExpandNotices | undefined;

/** @internal What a view of a task search knows of its page and of the request that fetched it. */
interface PageLink {
  readonly expanded: readonly (ExpandedEntry | null)[] | null | undefined;
  /** The request's `expandMask.paths`. */
  readonly requested: readonly string[];
  readonly notices: ExpandNotices;
}

// Views handed out by task search carry their page's link under this symbol, defined not
// enumerable: JSON.stringify, spreads, Object.keys, equality checks and console.log do not see it.
// Not a WeakMap: V8 keeps a young key's value alive through scavenges, which costs paging far
// more than a property does.
const PAGE_LINK = Symbol('idgov.page');
type Linked = { readonly [PAGE_LINK]?: PageLink };
// Objects already checked against their type: each is checked once, on first resolution.
const checked = new WeakSet<object>();

/**
 * @internal Links each view of a page to the page's `expanded` array and to the request's expand
 * paths, so that {@link resolveExpanded} needs only the view, and can tell a path nobody asked for.
 */
export function linkExpanded(
  page: TaskSearchResponse,
  requested: readonly string[],
  notices: ExpandNotices,
): void {
  const link: PageLink = { expanded: page.expanded, requested, notices };
  // One descriptor for the page: defining with a shared one is as cheap as an assignment.
  const descriptor: PropertyDescriptor = { value: link, configurable: true };
  for (const view of page.list ?? []) if (view) Object.defineProperty(view, PAGE_LINK, descriptor);
}

/** Says once why `field` resolves to nothing, where the cause is the caller's to fix. */
function explainNothing(view: TaskView, field: ExpandedField, link: PageLink | undefined): void {
  const call = `resolveExpanded(view, '${field}')`;
  if (!link) {
    if (!view[field]) return;
    processNotices ??= new ExpandNotices(createLogger());
    processNotices.once(
      `copy\u0000${field}`,
      `${call} found no page to resolve against: the view is not one client.tasks.search() handed out, or a copy of one (a spread, structuredClone or JSON keeps its fields, not its link to the page). Resolve before copying, or pass the page's expanded array as the third argument.`,
    );
    return;
  }
  const path = EXPAND_PATH[field];
  if (view[field] || link.requested.includes(path) || link.requested.includes('*')) return;
  link.notices.once(
    `path\u0000${field}`,
    `${call} resolves to nothing: the search did not expand ${path}. Add '${path}' to expandMask.paths.`,
  );
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
 * Works on views from `client.tasks.search()` directly; for a page you parsed yourself, or a view
 * you copied (a copy keeps the fields, not the link to its page), pass the page's `expanded`.
 *
 * A field fills only when the search asked for its path in `expandMask.paths` (`userPath` needs
 * `user_id`, `appPath` needs `app_id`, ...; `'*'` asks for all). Resolving a field whose path the
 * search left out, or a copied view without `expanded`, logs a warning once (per client, at `warn`)
 * that names the path to add or the argument to pass.
 *
 * @returns For list fields (`approversPath`, `entitlementsPath`, `insightsPath`,
 * `resourceBindingsPath`, `stepApproversPath`) an array, possibly empty; for the others the object
 * or `undefined` when the path is empty or was not expanded.
 *
 * @example
 * for await (const view of client.tasks.search({ expandMask: { paths: ['app_id'] } })) {
 *   const app = resolveExpanded(view, 'appPath');
 *   if (isExpandedType(app, 'App')) console.log(app.displayName ?? '-');
 * }
 *
 * @group Task search
 */
export function resolveExpanded<F extends ExpandedField>(
  view: TaskView,
  field: F,
  expanded?: readonly (ExpandedEntry | null)[] | null,
): ExpandedResult<F> {
  const given = expanded !== undefined;
  const link = given ? undefined : (view as Linked)[PAGE_LINK];
  const entries = given ? expanded : link?.expanded;
  const path = view[field];
  const indexes = path ? JSONPATH.exec(path.trim())?.[1]?.split(',') : undefined;
  const objects: unknown[] = [];
  for (const text of indexes ?? []) {
    const index = Number(text);
    const entry = entries?.[index];
    if (entry) objects.push(typed(entry, index));
  }
  // A caller who passed `expanded` knows what it passed; otherwise say why there is nothing.
  if (!objects.length && !given) explainNothing(view, field, link);
  return (field in LIST_FIELDS ? objects : objects[0]) as ExpandedResult<F>;
}
