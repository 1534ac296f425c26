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
import { unlisted } from './open-enum.ts';
import type { KnownTaskTypeKind, UnlistedTaskTypeFilter } from './task-search.ts';

// The request values the SDK knows, for the warning about others, and the escape hatch for task
// type variants added after this release. Runtime values that are not schemas: the root exports them.

/**
 * A filter for a task type variant the service added after this release, sent on purpose.
 *
 * @example
 * client.tasks.search({ taskTypes: [{ grant: {} }, unlistedTaskType('escalation')] });
 *
 * @group Wire model
 */
export function unlistedTaskType(variant: string, fields: object = {}): UnlistedTaskTypeFilter {
  unlisted(variant);
  return { [variant]: fields } as unknown as UnlistedTaskTypeFilter;
}

/**
 * @internal The enum fields of a task search request and their known values, for the warning
 * about values this SDK does not know.
 */
export const TASK_SEARCH_ENUM_FIELDS: Readonly<Record<string, Record<string, string>>> = {
  accountStatuses: AccountStatus,
  accountTypes: AppUserType,
  certifyOutcomes: CertifyOutcome,
  currentStep: TaskSearchCurrentStep,
  emergencyStatus: EmergencyStatus,
  grantOutcomes: GrantOutcome,
  pendingActionFilter: PendingActionFilter,
  revokeOutcomes: RevokeOutcome,
  sortBy: TaskSearchSortBy,
  stepApprovalTypes: StepApprovalType,
  taskStates: TaskState,
  'expandMask.paths': TaskExpandPath,
};

/** @internal The task type variants this SDK knows, in the order the service lists them. */
export const KNOWN_TASK_TYPE_KINDS: readonly KnownTaskTypeKind[] = [
  'grant',
  'revoke',
  'certify',
  'offboarding',
  'action',
  'finding',
];
