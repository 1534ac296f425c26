import * as z from 'zod/mini';
import {
  AccountStatus,
  AppUserType,
  CertifyOutcome,
  EmergencyStatus,
  GrantOutcome,
  PendingActionFilter,
  RevokeOutcome,
  StepApprovalType,
  TaskExpandPath,
  TaskSearchCurrentStep,
  TaskSearchSortBy,
  TaskState,
} from './enums.ts';
import { requestEnum } from './open-enum.ts';
import { TaskSchema } from './task.ts';
import type { TaskType, TaskTypeKind } from './task-type.ts';
import {
  dateTimeInput,
  durationInput,
  list,
  loose,
  map,
  nullishBoolean,
  nullishString,
  opt,
  pageSizeInput,
} from './wire.ts';

// ---- request (strict: unknown keys and wrong types are errors naming the field) --------------

const ids = () => z.nullish(z.array(z.string()));
const enums = <E extends Record<string, string>>(e: E) => z.nullish(z.array(requestEnum(e)));

/**
 * What to inline in `expanded`: known paths, or paths the service added later marked with `unlisted()`.
 *
 * @group Wire model
 */
export const TaskExpandMaskSchema = z.strictObject({
  paths: z.nullish(z.array(requestEnum(TaskExpandPath))),
});
/**
 * What to inline in `expanded`, e.g. `{ paths: ['app_id', 'user_id'] }`.
 *
 * @group Wire model
 */
export type TaskExpandMask = z.input<typeof TaskExpandMaskSchema>;

/**
 * A task reference in a search: the task ID.
 *
 * @group Wire model
 */
export const TaskRefSchema = z.strictObject({ id: z.string() });
/**
 * A task reference in a search.
 *
 * @group Wire model
 */
export type TaskRef = z.input<typeof TaskRefSchema>;

/**
 * The task type variants this SDK knows.
 *
 * @group Wire model
 */
export type KnownTaskTypeKind = Exclude<TaskTypeKind, 'unknown'>;

declare const unlistedVariant: unique symbol;
/**
 * A task type filter for a variant this SDK does not list: made by `unlistedTaskType()` (from `@idgov/sdk`).
 * It declares no fields, so that a misspelt variant (`{ grnt: {} }`) is reported as the unknown
 * property it is.
 *
 * @group Wire model
 */
export interface UnlistedTaskTypeFilter {
  readonly [unlistedVariant]: string;
}

/**
 * What the other variants of a known task type filter must be: absent. A string literal type, so
 * that `{ grant: {}, revoke: {} }` fails to compile with this sentence in the message.
 */
type OneVariantOnly = 'a task type filter holds exactly one variant';

/**
 * A task type filter: exactly one variant, usually empty, e.g. `{ grant: {} }`. A parsed
 * `task.type` is accepted too (its `$kind` is not sent). For a variant this SDK does not know,
 * use `unlistedTaskType()` (from `@idgov/sdk`).
 *
 * @group Wire model
 */
export type TaskTypeFilter =
  | {
      [K in KnownTaskTypeKind]: { readonly [P in K]: object } & {
        readonly [P in Exclude<KnownTaskTypeKind, K>]?: OneVariantOnly | null;
      } & { readonly $kind?: string };
    }[KnownTaskTypeKind]
  | ParsedTaskTypeFilter
  | UnlistedTaskTypeFilter;

/**
 * A parsed `task.type` used as a filter: only its `$kind` matters (it is sent as that variant,
 * empty). Declared by that one field, so that TypeScript does not measure a hand-written filter
 * against the whole parsed type and report a missing `$kind` instead of the mistake.
 *
 * @group Wire model
 */
export interface ParsedTaskTypeFilter {
  readonly $kind: TaskType['$kind'];
}

const TASK_TYPE_FILTER = 'expected an object with exactly one task type variant, such as { grant: {} }';
/**
 * A task type filter: an object with exactly one key whose value is an object; keys set to `null`
 * are unset, as in responses. A parsed `task.type` (it has `$kind`) is sent as its variant with an
 * empty object, `{ revoke: {} }`: "tasks of this type", not "tasks with these exact fields".
 *
 * @group Wire model
 */
export const TaskTypeFilterSchema = z.pipe(
  z.transform((value: unknown) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const { $kind, ...fields } = value as Record<string, unknown>;
    const set = Object.entries(fields).filter(([, field]) => field !== null);
    if ($kind === undefined) return Object.fromEntries(set);
    const variant = $kind !== 'unknown' && typeof $kind === 'string' ? $kind : set[0]?.[0];
    return variant === undefined ? {} : { [variant]: {} };
  }),
  z
    .record(z.string(), z.record(z.string(), z.unknown()))
    .check(z.refine((value) => Object.keys(value).length === 1, { error: TASK_TYPE_FILTER })),
) as unknown as z.ZodMiniType<Record<string, Record<string, unknown>>, TaskTypeFilter>;

/**
 * The body of a task search. Every field is optional; an empty request searches all tasks.
 *
 * @group Wire model
 */
export const TaskSearchRequestSchema = z.strictObject({
  accessReviewIds: ids(),
  accountOwnerIds: ids(),
  accountStatuses: enums(AccountStatus),
  accountTypes: enums(AppUserType),
  actorId: z.optional(z.string()),
  appEntitlementIds: ids(),
  appResourceIds: ids(),
  appResourceTypeIds: ids(),
  appUserSubjectIds: ids(),
  applicationIds: ids(),
  assignedOrStepApproverUserId: z.optional(z.string()),
  assigneesInIds: ids(),
  certifyOutcomes: enums(CertifyOutcome),
  createdAfter: z.nullish(dateTimeInput),
  createdBefore: z.nullish(dateTimeInput),
  currentStep: z.optional(requestEnum(TaskSearchCurrentStep)),
  emergencyStatus: z.optional(requestEnum(EmergencyStatus)),
  excludeAppEntitlementIds: ids(),
  excludeAppResourceTypeIds: ids(),
  excludeApplicationIds: ids(),
  excludeIds: ids(),
  expandMask: z.nullish(TaskExpandMaskSchema),
  grantOutcomes: enums(GrantOutcome),
  includeActedAfter: z.nullish(dateTimeInput),
  includeDeleted: z.optional(z.boolean()),
  myWorkUserIds: ids(),
  olderThanDuration: z.nullish(durationInput),
  openerIds: ids(),
  openerOrSubjectUserId: z.optional(z.string()),
  outcomeAfter: z.nullish(dateTimeInput),
  outcomeBefore: z.nullish(dateTimeInput),
  pageSize: z.optional(pageSizeInput),
  pageToken: z.optional(z.string()),
  pendingActionFilter: z.optional(requestEnum(PendingActionFilter)),
  previouslyActedOnIds: ids(),
  query: z.optional(z.string()),
  refs: z.nullish(z.array(TaskRefSchema)),
  requireApprovalReason: z.optional(z.boolean()),
  requireDenialReason: z.optional(z.boolean()),
  revokeOutcomes: enums(RevokeOutcome),
  sortBy: z.optional(requestEnum(TaskSearchSortBy)),
  stepApprovalTypes: enums(StepApprovalType),
  subjectIds: ids(),
  taskStates: enums(TaskState),
  taskTypes: z.nullish(z.array(TaskTypeFilterSchema)),
  userEmploymentStatuses: ids(),
});
/**
 * A task search as you write it: dates may be `Date`s, durations numbers of seconds. Mapped from the
 * schema's input type, so that compilers name it in their messages (a misspelt field's error is a
 * line, not the request's fields spelt out).
 *
 * @group Wire model
 */
export type TaskSearchRequest = {
  [Field in keyof z.input<typeof TaskSearchRequestSchema>]: z.input<typeof TaskSearchRequestSchema>[Field];
};
/**
 * A task search as sent on the wire (dates and durations serialised).
 *
 * @group Wire model
 */
export type TaskSearchRequestBody = z.output<typeof TaskSearchRequestSchema>;

// ---- response (lenient: nulls accepted, unknown fields and values kept) ----------------------

const str = () => nullishString;

const ActorObjectPermissionsFields = loose({
  read: nullishBoolean,
  edit: nullishBoolean,
  delete: nullishBoolean,
  extra: opt(map(z.boolean())),
});
/**
 * What the calling user may do to an object.
 *
 * @group Wire model
 */
export interface ActorObjectPermissions extends z.output<typeof ActorObjectPermissionsFields> {}
/**
 * What the calling user may do to an object.
 *
 * @group Wire model
 */
export const ActorObjectPermissionsSchema: z.ZodMiniType<
  ActorObjectPermissions,
  z.input<typeof ActorObjectPermissionsFields>
> = ActorObjectPermissionsFields;

const TaskViewFields = loose({
  task: opt(TaskSchema),
  objectPermissions: opt(ActorObjectPermissionsSchema),
  accessReviewPath: str(),
  appPath: str(),
  appUserLastUsagePath: str(),
  appUserPath: str(),
  approversPath: str(),
  createdByUserPath: str(),
  entitlementsPath: str(),
  identityUserPath: str(),
  insightsPath: str(),
  principalResourcePath: str(),
  resourceBindingsPath: str(),
  roleResourcePath: str(),
  scopeResourcePath: str(),
  stepApproversPath: str(),
  userPath: str(),
});
/**
 * One search result.
 *
 * @group Wire model
 */
export interface TaskView extends z.output<typeof TaskViewFields> {}
/**
 * One search result: the task, the caller's permissions on it, and JSONPATH strings
 * (`"$.expanded[0]"`) locating related objects in the page's `expanded` array.
 *
 * @group Wire model
 */
export const TaskViewSchema: z.ZodMiniType<TaskView, z.input<typeof TaskViewFields>> = TaskViewFields;

const ExpandedEntryFields = z.looseObject({ '@type': str() });
/**
 * An entry of a page's `expanded` array, unchecked beyond its `@type`.
 *
 * @group Wire model
 */
export interface ExpandedEntry extends z.output<typeof ExpandedEntryFields> {}
/**
 * An entry of a page's `expanded` array as the page carries it: only its `@type` is checked with
 * the page, so paging never pays for objects nobody reads. `resolveExpanded` checks an entry
 * against its type when it is first resolved and returns it typed.
 *
 * @group Wire model
 */
export const ExpandedEntrySchema: z.ZodMiniType<
  ExpandedEntry,
  z.input<typeof ExpandedEntryFields>
> = ExpandedEntryFields;

const TaskSearchResponseFields = loose({
  list: list(TaskViewSchema),
  expanded: list(ExpandedEntrySchema),
  nextPageToken: str(),
});
/**
 * One page of task search results. `nextPageToken` is empty on the last page.
 *
 * @group Wire model
 */
export interface TaskSearchResponse extends z.output<typeof TaskSearchResponseFields> {}
/**
 * One page of task search results.
 *
 * @group Wire model
 */
export const TaskSearchResponseSchema: z.ZodMiniType<
  TaskSearchResponse,
  z.input<typeof TaskSearchResponseFields>
> = TaskSearchResponseFields;
