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
import { openEnum } from './open-enum.ts';
import { TaskSchema } from './task.ts';
import type { TaskTypeKind } from './task-type.ts';
import {
  dateTimeInput,
  durationInput,
  loose,
  map,
  nullishBoolean,
  nullishString,
  opt,
  pageSizeInput,
} from './wire.ts';

// ---- request (strict: unknown keys and wrong types are errors naming the field) --------------

const ids = () => z.nullish(z.array(z.string()));
const enums = <E extends Record<string, string>>(e: E) => z.nullish(z.array(openEnum(e)));

/**
 * What to inline in `expanded`; paths the service adds later are accepted too.
 *
 * @group Wire model
 */
export const TaskExpandMaskSchema = z.strictObject({ paths: z.nullish(z.array(openEnum(TaskExpandPath))) });
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
/**
 * A task type filter: exactly one variant, usually empty, e.g. `{ grant: {} }`. A variant this SDK
 * does not know is sent as given (the service may know it).
 *
 * @group Wire model
 */
export type TaskTypeFilter =
  | { [K in KnownTaskTypeKind]: { [P in K]: Record<string, unknown> } }[KnownTaskTypeKind]
  | Record<string, Record<string, unknown>>;

const TASK_TYPE_FILTER = 'expected an object with exactly one task type variant, such as { grant: {} }';
/**
 * A task type filter: an object with exactly one key whose value is an object.
 *
 * @group Wire model
 */
export const TaskTypeFilterSchema = z
  .record(z.string(), z.record(z.string(), z.unknown()))
  .check(
    z.refine((value) => Object.keys(value).length === 1, { error: TASK_TYPE_FILTER }),
  ) as unknown as z.ZodMiniType<TaskTypeFilter, TaskTypeFilter>;

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
  currentStep: z.optional(openEnum(TaskSearchCurrentStep)),
  emergencyStatus: z.optional(openEnum(EmergencyStatus)),
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
  pendingActionFilter: z.optional(openEnum(PendingActionFilter)),
  previouslyActedOnIds: ids(),
  query: z.optional(z.string()),
  refs: z.nullish(z.array(TaskRefSchema)),
  requireApprovalReason: z.optional(z.boolean()),
  requireDenialReason: z.optional(z.boolean()),
  revokeOutcomes: enums(RevokeOutcome),
  sortBy: z.optional(openEnum(TaskSearchSortBy)),
  stepApprovalTypes: enums(StepApprovalType),
  subjectIds: ids(),
  taskStates: enums(TaskState),
  taskTypes: z.nullish(z.array(TaskTypeFilterSchema)),
  userEmploymentStatuses: ids(),
});
/**
 * A task search as you write it: dates may be `Date`s, durations numbers of seconds.
 *
 * @group Wire model
 */
export type TaskSearchRequest = z.input<typeof TaskSearchRequestSchema>;
/**
 * A task search as sent on the wire (dates and durations serialised).
 *
 * @group Wire model
 */
export type TaskSearchRequestBody = z.output<typeof TaskSearchRequestSchema>;

// ---- response (lenient: nulls accepted, unknown fields and values kept) ----------------------

const str = () => nullishString;

/**
 * What the calling user may do to an object.
 *
 * @group Wire model
 */
export const ActorObjectPermissionsSchema = loose({
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
export type ActorObjectPermissions = z.output<typeof ActorObjectPermissionsSchema>;

/**
 * One search result: the task, the caller's permissions on it, and JSONPATH strings
 * (`"$.expanded[0]"`) locating related objects in the page's `expanded` array.
 *
 * @group Wire model
 */
export const TaskViewSchema = loose({
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
export type TaskView = z.output<typeof TaskViewSchema>;

/**
 * A related object inlined by the expand mask. `@type` names its serialized type
 * (e.g. `"type.googleapis.com/svc.api.app.v1.App"`); its fields are the service's and kept as sent.
 *
 * @group Wire model
 */
export const ExpandedObjectSchema = z.looseObject({ '@type': str() });
/**
 * A related object inlined by the expand mask.
 *
 * @group Wire model
 */
export type ExpandedObject = z.output<typeof ExpandedObjectSchema>;

/**
 * One page of task search results.
 *
 * @group Wire model
 */
export const TaskSearchResponseSchema = loose({
  list: opt(z.array(TaskViewSchema)),
  expanded: opt(z.array(ExpandedObjectSchema)),
  nextPageToken: str(),
});
/**
 * One page of task search results. `nextPageToken` is empty on the last page.
 *
 * @group Wire model
 */
export type TaskSearchResponse = z.output<typeof TaskSearchResponseSchema>;
