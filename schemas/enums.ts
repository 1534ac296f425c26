import { defineEnum, type OpenEnum } from './open-enum.ts';

// Every enum of the service's interface, written as its description writes them: a prefix and the
// suffixes. Each is open: `type X` also admits new strings, because the service adds values
// (guides/protocol.md, Wire conventions).

/**
 * Task state (`Task.state`, `TaskSearchRequest.taskStates`).
 *
 * @group Wire model
 */
export const TaskState = defineEnum('TASK_STATE_', ['UNSPECIFIED', 'OPEN', 'CLOSED']);
/**
 * Task state; unknown values from the service pass through.
 *
 * @group Wire model
 */
export type TaskState = OpenEnum<typeof TaskState>;

/**
 * Processing state of a task (`Task.processing`).
 *
 * @group Wire model
 */
export const TaskProcessingType = defineEnum('TASK_PROCESSING_TYPE_', [
  'UNSPECIFIED',
  'PROCESSING',
  'WAITING',
  'DONE',
]);
/**
 * Processing state; unknown values pass through.
 *
 * @group Wire model
 */
export type TaskProcessingType = OpenEnum<typeof TaskProcessingType>;

/**
 * Where a task came from (`Task.origin`).
 *
 * @group Wire model
 */
export const TaskOrigin = defineEnum('TASK_ORIGIN_', [
  'UNSPECIFIED',
  'PROFILE_MEMBERSHIP_AUTOMATION',
  'CHAT',
  'API',
  'TICKETING',
  'ASSISTANT',
  'WEBAPP',
  'TIME_REVOKE',
  'NON_USAGE_REVOKE',
  'PROFILE_MEMBERSHIP_MANUAL',
  'PROFILE_MEMBERSHIP',
  'AUTOMATION',
  'ACCESS_REVIEW',
  'CASCADE_DELETE',
]);
/**
 * Task origin; unknown values pass through.
 *
 * @group Wire model
 */
export type TaskOrigin = OpenEnum<typeof TaskOrigin>;

/**
 * Actions the calling user may perform on a task (`Task.actions`).
 *
 * @group Wire model
 */
export const TaskActionType = defineEnum('TASK_ACTION_TYPE_', [
  'UNSPECIFIED',
  'CLOSE',
  'APPROVE',
  'DENY',
  'COMMENT',
  'DELETE',
  'REASSIGN',
  'RESTART',
  'SEND_REMINDER',
  'PROVISION_COMPLETE',
  'PROVISION_CANCELLED',
  'PROVISION_ERRORED',
  'ROLLBACK_SKIPPED',
  'PROVISION_APP_USER_TARGET_CREATED',
  'HARD_RESET',
  'ESCALATE_TO_EMERGENCY_ACCESS',
  'CHANGE_POLICY',
  'RECALCULATE_DENIAL_FROM_BASE_POLICY_DECISIONS',
  'SET_INSIGHTS_AND_RECOMMENDATION',
  'SET_ANALYSIS_ID',
  'RECALCULATE_APPROVERS_LIST',
  'PROCESS_NOW',
  'APPROVE_WITH_STEP_UP',
  'SKIP_STEP',
  'ROLLBACK_CANCELLED',
  'UPDATE_REQUEST_DATA',
  'UPDATE_GRANT_DURATION',
  'RETRY_PROVISIONING',
]);
/**
 * Task action; unknown values pass through.
 *
 * @group Wire model
 */
export type TaskActionType = OpenEnum<typeof TaskActionType>;

/**
 * Insight recommendation on a task (`Task.recommendation`).
 *
 * @group Wire model
 */
export const InsightRecommendation = defineEnum('INSIGHT_RECOMMENDATION_', [
  'UNSPECIFIED',
  'APPROVE',
  'DENY',
  'REVIEW',
]);
/**
 * Insight recommendation; unknown values pass through.
 *
 * @group Wire model
 */
export type InsightRecommendation = OpenEnum<typeof InsightRecommendation>;

/**
 * Source of an external reference (`ExternalRef.externalRefSource`).
 *
 * @group Wire model
 */
export const ExternalRefSource = defineEnum('', ['UNSPECIFIED', 'TICKETING']);
/**
 * External reference source; unknown values pass through.
 *
 * @group Wire model
 */
export type ExternalRefSource = OpenEnum<typeof ExternalRefSource>;

/**
 * Outcome of a grant task.
 *
 * @group Wire model
 */
export const GrantOutcome = defineEnum('GRANT_OUTCOME_', [
  'UNSPECIFIED',
  'GRANTED',
  'DENIED',
  'ERROR',
  'CANCELLED',
  'WAIT_TIMED_OUT',
]);
/**
 * Grant outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type GrantOutcome = OpenEnum<typeof GrantOutcome>;

/**
 * Outcome of a revoke task.
 *
 * @group Wire model
 */
export const RevokeOutcome = defineEnum('REVOKE_OUTCOME_', [
  'UNSPECIFIED',
  'REVOKED',
  'DENIED',
  'ERROR',
  'CANCELLED',
  'WAIT_TIMED_OUT',
]);
/**
 * Revoke outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type RevokeOutcome = OpenEnum<typeof RevokeOutcome>;

/**
 * Outcome of a certify task.
 *
 * @group Wire model
 */
export const CertifyOutcome = defineEnum('CERTIFY_OUTCOME_', [
  'UNSPECIFIED',
  'CERTIFIED',
  'DECERTIFIED',
  'ERROR',
  'CANCELLED',
  'WAIT_TIMED_OUT',
]);
/**
 * Certify outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type CertifyOutcome = OpenEnum<typeof CertifyOutcome>;

/**
 * Outcome of an offboarding task.
 *
 * @group Wire model
 */
export const OffboardingOutcome = defineEnum('OFFBOARDING_OUTCOME_', [
  'UNSPECIFIED',
  'IN_PROGRESS',
  'DONE',
  'ERROR',
  'CANCELLED',
]);
/**
 * Offboarding outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type OffboardingOutcome = OpenEnum<typeof OffboardingOutcome>;

/**
 * Outcome of a finding task.
 *
 * @group Wire model
 */
export const FindingTaskOutcome = defineEnum('FINDING_TASK_OUTCOME_', [
  'UNSPECIFIED',
  'REMEDIATED',
  'RISK_ACCEPTED',
  'CANCELLED',
]);
/**
 * Finding task outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type FindingTaskOutcome = OpenEnum<typeof FindingTaskOutcome>;

/**
 * Kind of an action task (`TaskTypeAction.type`).
 *
 * @group Wire model
 */
export const ActionType = defineEnum('TYPE_', [
  'UNSPECIFIED',
  'GRANT',
  'WORKFLOW',
  'RESOURCE_ACTION',
  'TOOL_CALL',
  'MANUAL',
]);
/**
 * Action kind; unknown values pass through.
 *
 * @group Wire model
 */
export type ActionType = OpenEnum<typeof ActionType>;

/**
 * Outcome of an action task.
 *
 * @group Wire model
 */
export const ActionOutcome = defineEnum('ACTION_OUTCOME_', [
  'UNSPECIFIED',
  'SUCCESS',
  'DENIED',
  'ERROR',
  'CANCELLED',
]);
/**
 * Action outcome; unknown values pass through.
 *
 * @group Wire model
 */
export type ActionOutcome = OpenEnum<typeof ActionOutcome>;

/**
 * Operation of a connector action reference.
 *
 * @group Wire model
 */
export const ConnectorActionOperation = defineEnum('OPERATION_', ['UNSPECIFIED', 'GRANT']);
/**
 * Connector action operation; unknown values pass through.
 *
 * @group Wire model
 */
export type ConnectorActionOperation = OpenEnum<typeof ConnectorActionOperation>;

/**
 * Account status of the app user subject (`TaskSearchRequest.accountStatuses`).
 *
 * @group Wire model
 */
export const AccountStatus = defineEnum('STATUS_', ['UNSPECIFIED', 'ENABLED', 'DISABLED', 'DELETED']);
/**
 * Account status; unknown values pass through.
 *
 * @group Wire model
 */
export type AccountStatus = OpenEnum<typeof AccountStatus>;

/**
 * App user type (`TaskSearchRequest.accountTypes`).
 *
 * @group Wire model
 */
export const AppUserType = defineEnum('APP_USER_TYPE_', [
  'UNSPECIFIED',
  'USER',
  'SERVICE_ACCOUNT',
  'SYSTEM_ACCOUNT',
]);
/**
 * App user type; unknown values pass through.
 *
 * @group Wire model
 */
export type AppUserType = OpenEnum<typeof AppUserType>;

/**
 * Current step filter (`TaskSearchRequest.currentStep`).
 *
 * @group Wire model
 */
export const TaskSearchCurrentStep = defineEnum('TASK_SEARCH_CURRENT_STEP_', [
  'UNSPECIFIED',
  'APPROVAL',
  'PROVISION',
]);
/**
 * Current step filter; unknown values pass through.
 *
 * @group Wire model
 */
export type TaskSearchCurrentStep = OpenEnum<typeof TaskSearchCurrentStep>;

/**
 * Emergency access filter (`TaskSearchRequest.emergencyStatus`).
 *
 * @group Wire model
 */
export const EmergencyStatus = defineEnum('', ['UNSPECIFIED', 'ALL', 'NON_EMERGENCY', 'EMERGENCY']);
/**
 * Emergency access filter; unknown values pass through.
 *
 * @group Wire model
 */
export type EmergencyStatus = OpenEnum<typeof EmergencyStatus>;

/**
 * Pending action filter (`TaskSearchRequest.pendingActionFilter`).
 *
 * @group Wire model
 */
export const PendingActionFilter = defineEnum('PENDING_ACTION_FILTER_', [
  'UNSPECIFIED',
  'WITH_PENDING',
  'WITHOUT_PENDING',
]);
/**
 * Pending action filter; unknown values pass through.
 *
 * @group Wire model
 */
export type PendingActionFilter = OpenEnum<typeof PendingActionFilter>;

/**
 * Sort order of task search (`TaskSearchRequest.sortBy`).
 *
 * @group Wire model
 */
export const TaskSearchSortBy = defineEnum('TASK_SEARCH_SORT_BY_', [
  'UNSPECIFIED',
  'ACCOUNT',
  'RESOURCE',
  'ACCOUNT_OWNER',
  'REVERSE_TICKET_ID',
  'TICKET_ID',
  'CREATED_AT',
  'REVERSE_CREATED_AT',
  'APP_RESOURCE_ID_AND_APP_ENTITLEMENT',
]);
/**
 * Task search sort order; unknown values pass through.
 *
 * @group Wire model
 */
export type TaskSearchSortBy = OpenEnum<typeof TaskSearchSortBy>;

/**
 * Type of the current policy step (`TaskSearchRequest.stepApprovalTypes`).
 *
 * @group Wire model
 */
export const StepApprovalType = defineEnum('STEP_APPROVAL_TYPE_', [
  'UNSPECIFIED',
  'USERS',
  'MANAGER',
  'APP_OWNERS',
  'GROUP',
  'SELF',
  'ENTITLEMENT_OWNERS',
  'EXPRESSION',
  'WEBHOOK',
  'RESOURCE_OWNERS',
  'AGENT',
]);
/**
 * Step approval type; unknown values pass through.
 *
 * @group Wire model
 */
export type StepApprovalType = OpenEnum<typeof StepApprovalType>;

/**
 * Type of finding a transformation rule applies to (newer services add more).
 *
 * @group Wire model
 */
export const FindingType = defineEnum('FINDING_TYPE_', [
  'UNSPECIFIED',
  'SIMILAR_USERNAME_MATCH',
  'SERVICE_ACCOUNT_MISCLASSIFICATION',
  'NHI_UNOWNED',
  'SERVICE_ACCOUNT_UNOWNED',
  'DECOY_CREDENTIAL_USED',
  'CUSTOM',
  'CONNECTOR_ANOMALY_DETECTION_DISABLED',
  'DEACTIVATED_OWNER',
  'UNUSED_SECRET',
  'CREDENTIAL_PUBLICLY_EXPOSED',
  'DECOY_PUBLICLY_EXPOSED',
  'CREDENTIAL_EXPIRING',
]);
/**
 * Finding type; unknown values pass through.
 *
 * @group Wire model
 */
export type FindingType = OpenEnum<typeof FindingType>;

/**
 * Finding severity (`setSeverity.severity`).
 *
 * @group Wire model
 */
export const FindingSeverity = defineEnum('FINDING_SEVERITY_', [
  'UNSPECIFIED',
  'INFO',
  'LOW',
  'MEDIUM',
  'HIGH',
  'CRITICAL',
]);
/**
 * Finding severity; unknown values pass through.
 *
 * @group Wire model
 */
export type FindingSeverity = OpenEnum<typeof FindingSeverity>;

/**
 * State of a policy step instance.
 *
 * @group Wire model
 */
export const PolicyStepState = defineEnum('POLICY_STEP_STATE_', ['UNSPECIFIED', 'ACTIVE', 'DONE']);
/**
 * Policy step state; unknown values pass through.
 *
 * @group Wire model
 */
export type PolicyStepState = OpenEnum<typeof PolicyStepState>;

/**
 * Kind of policy.
 *
 * @group Wire model
 */
export const PolicyType = defineEnum('POLICY_TYPE_', [
  'UNSPECIFIED',
  'GRANT',
  'REVOKE',
  'CERTIFY',
  'ACCESS_REQUEST',
  'PROVISION',
]);
/**
 * Policy kind; unknown values pass through.
 *
 * @group Wire model
 */
export type PolicyType = OpenEnum<typeof PolicyType>;

/**
 * Allowed `TaskExpandMask.paths` values; `ALL` (`*`) expands everything.
 *
 * @group Wire model
 */
export const TaskExpandPath = Object.freeze({
  ALL: '*',
  ACCESS_REVIEW_ID: 'access_review_id',
  USER_ID: 'user_id',
  CREATED_BY_USER_ID: 'created_by_user_id',
  APP_ID: 'app_id',
  APP_USER_ID: 'app_user_id',
  APP_ENTITLEMENT_IDS: 'app_entitlement_ids',
  STEP_APPROVER_IDS: 'step_approver_ids',
  APPROVER_IDS: 'approver_ids',
  IDENTITY_USER_ID: 'identity_user_id',
  INSIGHT_IDS: 'insight_ids',
  APP_USER_LAST_USAGE: 'app_user_last_usage',
  ENTITLEMENT_SCOPE_BINDINGS: 'entitlement_scope_bindings',
  SCOPE_ROLE_RESOURCES: 'scope_role_resources',
  RESOURCE: 'resource',
} as const);
/**
 * An expand mask path; paths the service adds later are accepted too.
 *
 * @group Wire model
 */
export type TaskExpandPath = OpenEnum<typeof TaskExpandPath>;
