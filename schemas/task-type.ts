import * as z from 'zod/mini';
import {
  ActionOutcome,
  ActionType,
  CertifyOutcome,
  ConnectorActionOperation,
  FindingTaskOutcome,
  GrantOutcome,
  OffboardingOutcome,
  RevokeOutcome,
} from './enums.ts';
import { openEnum } from './open-enum.ts';
import { AppResourceRefSchema } from './refs.ts';
import {
  loose,
  map,
  nullishBoolean,
  nullishNumber,
  nullishString,
  nullishStrings,
  oneOf,
  opt,
} from './wire.ts';

const str = () => nullishString;

const TaskGrantSourceFields = loose({
  conversationId: str(),
  externalUrl: str(),
  integrationId: str(),
  requestId: str(),
  isExtension: nullishBoolean,
});
/**
 * Where a grant task came from.
 *
 * @group Wire model
 */
export interface TaskGrantSource extends z.output<typeof TaskGrantSourceFields> {}
/**
 * Where a grant task came from.
 *
 * @group Wire model
 */
export const TaskGrantSourceSchema: z.ZodMiniType<
  TaskGrantSource,
  z.input<typeof TaskGrantSourceFields>
> = TaskGrantSourceFields;

/**
 * Revoke source variant: created by a denied certify ticket of an access review.
 *
 * @group Wire model
 */
export const TaskRevokeSourceReviewSchema = loose({ accessReviewId: str(), certTicketId: str() });
/**
 * Revoke source variant: requested by a user.
 *
 * @group Wire model
 */
export const TaskRevokeSourceRequestSchema = loose({ requestUserId: str() });
/**
 * Revoke source variant: the grant expired.
 *
 * @group Wire model
 */
export const TaskRevokeSourceExpiredSchema = loose({ expiredAt: str() });
/**
 * Revoke source variant: revoked for non-usage.
 *
 * @group Wire model
 */
export const TaskRevokeSourceNonUsageSchema = loose({ expiresAt: str(), lastLogin: str() });

/**
 * Why a revoke task exists: exactly one of `review`, `request`, `expired`, `nonUsage`; switch on `$kind`.
 *
 * @group Wire model
 */
export const TaskRevokeSourceSchema = oneOf(
  {},
  {
    review: TaskRevokeSourceReviewSchema,
    request: TaskRevokeSourceRequestSchema,
    expired: TaskRevokeSourceExpiredSchema,
    nonUsage: TaskRevokeSourceNonUsageSchema,
  },
);
/**
 * Why a revoke task exists; switch on `$kind`.
 *
 * @group Wire model
 */
export type TaskRevokeSource = z.output<typeof TaskRevokeSourceSchema>;

const TaskTypeGrantFields = loose({
  appEntitlementId: str(),
  appId: str(),
  appUserId: str(),
  identityUserId: str(),
  grantDuration: str(),
  outcome: opt(openEnum(GrantOutcome)),
  outcomeTime: str(),
  source: opt(TaskGrantSourceSchema),
});
/**
 * The grant variant of a task type.
 *
 * @group Wire model
 */
export interface TaskTypeGrant extends z.output<typeof TaskTypeGrantFields> {}
/**
 * The grant variant of a task type.
 *
 * @group Wire model
 */
export const TaskTypeGrantSchema: z.ZodMiniType<
  TaskTypeGrant,
  z.input<typeof TaskTypeGrantFields>
> = TaskTypeGrantFields;

const TaskTypeRevokeFields = loose({
  appEntitlementId: str(),
  appId: str(),
  appUserId: str(),
  identityUserId: str(),
  outcome: opt(openEnum(RevokeOutcome)),
  outcomeTime: str(),
  resource: opt(AppResourceRefSchema),
  source: opt(TaskRevokeSourceSchema),
});
/**
 * The revoke variant of a task type.
 *
 * @group Wire model
 */
export interface TaskTypeRevoke extends z.output<typeof TaskTypeRevokeFields> {}
/**
 * The revoke variant of a task type.
 *
 * @group Wire model
 */
export const TaskTypeRevokeSchema: z.ZodMiniType<
  TaskTypeRevoke,
  z.input<typeof TaskTypeRevokeFields>
> = TaskTypeRevokeFields;

const TaskTypeCertifyFields = loose({
  accessReviewId: str(),
  accessReviewSelection: str(),
  appEntitlementId: str(),
  appId: str(),
  appUserId: str(),
  identityUserId: str(),
  outcome: opt(openEnum(CertifyOutcome)),
  outcomeTime: str(),
  resource: opt(AppResourceRefSchema),
});
/**
 * The certify variant of a task type.
 *
 * @group Wire model
 */
export interface TaskTypeCertify extends z.output<typeof TaskTypeCertifyFields> {}
/**
 * The certify variant of a task type.
 *
 * @group Wire model
 */
export const TaskTypeCertifySchema: z.ZodMiniType<
  TaskTypeCertify,
  z.input<typeof TaskTypeCertifyFields>
> = TaskTypeCertifyFields;

const TaskTypeOffboardingFields = loose({
  subjectUserId: str(),
  outcome: opt(openEnum(OffboardingOutcome)),
  outcomeTime: str(),
});
/**
 * The offboarding variant of a task type.
 *
 * @group Wire model
 */
export interface TaskTypeOffboarding extends z.output<typeof TaskTypeOffboardingFields> {}
/**
 * The offboarding variant of a task type.
 *
 * @group Wire model
 */
export const TaskTypeOffboardingSchema: z.ZodMiniType<
  TaskTypeOffboarding,
  z.input<typeof TaskTypeOffboardingFields>
> = TaskTypeOffboardingFields;

const TaskTypeFindingFields = loose({
  findingId: str(),
  findingType: str(),
  outcome: opt(openEnum(FindingTaskOutcome)),
  outcomeTime: str(),
});
/**
 * The finding variant of a task type.
 *
 * @group Wire model
 */
export interface TaskTypeFinding extends z.output<typeof TaskTypeFindingFields> {}
/**
 * The finding variant of a task type.
 *
 * @group Wire model
 */
export const TaskTypeFindingSchema: z.ZodMiniType<
  TaskTypeFinding,
  z.input<typeof TaskTypeFindingFields>
> = TaskTypeFindingFields;

/**
 * Reference to a connector resource action.
 *
 * @group Wire model
 */
export const ConnectorResourceActionRefSchema = loose({
  appId: str(),
  connectorActionDisplayName: str(),
  connectorActionName: str(),
  connectorId: str(),
  resourceTypeId: str(),
});
/**
 * Reference to a connector action.
 *
 * @group Wire model
 */
export const ConnectorActionRefSchema = loose({
  appId: str(),
  connectorId: str(),
  operation: opt(openEnum(ConnectorActionOperation)),
});

/**
 * The action an action task runs: exactly one target reference; switch on `$kind`.
 *
 * @group Wire model
 */
export const ActionInstanceSchema = oneOf(
  { displayName: str() },
  {
    connectorResourceActionRef: ConnectorResourceActionRefSchema,
    connectorActionRef: ConnectorActionRefSchema,
  },
);
/**
 * The action an action task runs; switch on `$kind`.
 *
 * @group Wire model
 */
export type ActionInstance = z.output<typeof ActionInstanceSchema>;

const ScopeRoleFields = loose({
  appId: str(),
  roleResourceId: str(),
  roleResourceTypeId: str(),
  scopeResourceId: str(),
  scopeResourceTypeId: str(),
  grantDuration: str(),
});
/**
 * Scope-role target of an action task.
 *
 * @group Wire model
 */
export interface ScopeRole extends z.output<typeof ScopeRoleFields> {}
/**
 * Scope-role target of an action task.
 *
 * @group Wire model
 */
export const ScopeRoleSchema: z.ZodMiniType<ScopeRole, z.input<typeof ScopeRoleFields>> = ScopeRoleFields;

const GatedToolCallTargetFields = loose({
  appEntitlementId: str(),
  appId: str(),
  callerKind: str(),
  connectorId: str(),
  gateId: str(),
  toolError: str(),
  toolId: str(),
  toolKind: str(),
  toolName: str(),
  inputSizeBytes: nullishNumber,
  toolInput: opt(map(z.unknown())),
  toolOutput: opt(z.unknown()),
});
/**
 * Gated tool call target of an action task.
 *
 * @group Wire model
 */
export interface GatedToolCallTarget extends z.output<typeof GatedToolCallTargetFields> {}
/**
 * Gated tool call target of an action task.
 *
 * @group Wire model
 */
export const GatedToolCallTargetSchema: z.ZodMiniType<
  GatedToolCallTarget,
  z.input<typeof GatedToolCallTargetFields>
> = GatedToolCallTargetFields;

const FindingTargetFields = loose({ findingId: str(), findingType: str() });
/**
 * Finding target of an action task.
 *
 * @group Wire model
 */
export interface FindingTarget extends z.output<typeof FindingTargetFields> {}
/**
 * Finding target of an action task.
 *
 * @group Wire model
 */
export const FindingTargetSchema: z.ZodMiniType<
  FindingTarget,
  z.input<typeof FindingTargetFields>
> = FindingTargetFields;

/**
 * The action variant of a task type; its target is exactly one of three, switch on `$kind`.
 *
 * @group Wire model
 */
export const TaskTypeActionSchema = oneOf(
  {
    actionId: str(),
    actionInstance: opt(ActionInstanceSchema),
    displayName: str(),
    type: opt(openEnum(ActionType)),
    outcome: opt(openEnum(ActionOutcome)),
    outcomeTime: str(),
    formValues: opt(map(z.unknown())),
    createdAppResourceId: str(),
    createdAppResourceTypeId: str(),
    createdAppEntitlementIds: nullishStrings,
  },
  { scopeRole: ScopeRoleSchema, toolCall: GatedToolCallTargetSchema, finding: FindingTargetSchema },
);
/**
 * The action variant of a task type.
 *
 * @group Wire model
 */
export type TaskTypeAction = z.output<typeof TaskTypeActionSchema>;

/**
 * A task's type when `$kind` is `'grant'`.
 *
 * @group Wire model
 */
export interface GrantTaskType {
  readonly $kind: 'grant';
  grant: TaskTypeGrant;
}
/**
 * A task's type when `$kind` is `'revoke'`.
 *
 * @group Wire model
 */
export interface RevokeTaskType {
  readonly $kind: 'revoke';
  revoke: TaskTypeRevoke;
}
/**
 * A task's type when `$kind` is `'certify'`.
 *
 * @group Wire model
 */
export interface CertifyTaskType {
  readonly $kind: 'certify';
  certify: TaskTypeCertify;
}
/**
 * A task's type when `$kind` is `'offboarding'`.
 *
 * @group Wire model
 */
export interface OffboardingTaskType {
  readonly $kind: 'offboarding';
  offboarding: TaskTypeOffboarding;
}
/**
 * A task's type when `$kind` is `'action'`.
 *
 * @group Wire model
 */
export interface ActionTaskType {
  readonly $kind: 'action';
  action: TaskTypeAction;
}
/**
 * A task's type when `$kind` is `'finding'`.
 *
 * @group Wire model
 */
export interface FindingTaskType {
  readonly $kind: 'finding';
  finding: TaskTypeFinding;
}
/**
 * A task's type of a variant this SDK does not know yet: its data is kept as the service sent it.
 *
 * @group Wire model
 */
export interface UnknownTaskType {
  readonly $kind: 'unknown';
  /** The unknown variant's data, under its own name. */
  readonly [field: string]: unknown;
}
/**
 * The type of a task; switch on `$kind` (`'grant' | 'revoke' | 'certify' | 'offboarding' | 'action' |
 * 'finding' | 'unknown'`) to narrow to the variant. A union of named interfaces, so that editors
 * show these names instead of spelling each variant out.
 *
 * @group Wire model
 */
export type TaskType =
  | GrantTaskType
  | RevokeTaskType
  | CertifyTaskType
  | OffboardingTaskType
  | ActionTaskType
  | FindingTaskType
  | UnknownTaskType;

const TaskTypeVariants = oneOf(
  {},
  {
    grant: TaskTypeGrantSchema,
    revoke: TaskTypeRevokeSchema,
    certify: TaskTypeCertifySchema,
    offboarding: TaskTypeOffboardingSchema,
    action: TaskTypeActionSchema,
    finding: TaskTypeFindingSchema,
  },
);
/**
 * The type of a task: exactly one of six variants; switch on `$kind` to narrow.
 *
 * @group Wire model
 */
export const TaskTypeSchema: z.ZodMiniType<
  TaskType,
  z.input<typeof TaskTypeVariants>
> = TaskTypeVariants as unknown as z.ZodMiniType<TaskType, z.input<typeof TaskTypeVariants>>;
// The named members are the zod output, spelt out: a change to either fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameOutput: Same<TaskType, z.output<typeof TaskTypeVariants>> = true;
void _sameOutput;
/**
 * The name of a task type variant.
 *
 * @group Wire model
 */
export type TaskTypeKind = TaskType['$kind'];
