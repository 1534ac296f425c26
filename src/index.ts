/**
 * `@idgov/sdk`: the typed client of the identity-governance API.
 *
 * The root holds what a user of the client names: {@link IdGovClient}, the errors, the paging types,
 * the resource types and the enums. Each name has one way in: the Zod schemas are in
 * `@idgov/sdk/schemas`, webhook signing and verifying in `@idgov/sdk/webhooks`, the fake tenant in
 * `@idgov/sdk/testing`.
 *
 * @module @idgov/sdk
 */

export type { AppEntitlement, AppEntitlementView } from '../schemas/app-entitlement.ts';
export {
  AccountStatus,
  ActionOutcome,
  ActionType,
  AppUserType,
  CertifyOutcome,
  ConnectorActionOperation,
  EmergencyStatus,
  ExternalRefSource,
  FindingSeverity,
  FindingTaskOutcome,
  FindingType,
  GrantOutcome,
  InsightRecommendation,
  OffboardingOutcome,
  PendingActionFilter,
  PolicyStepState,
  PolicyType,
  RevokeOutcome,
  StepApprovalType,
  TaskActionType,
  TaskExpandPath,
  TaskOrigin,
  TaskProcessingType,
  TaskSearchCurrentStep,
  TaskSearchSortBy,
  TaskState,
} from '../schemas/enums.ts';
export {
  type AccessReview,
  type App,
  type AppResource,
  type AppResourceType,
  type AppUser,
  type ExpandedAppEntitlement,
  type ExpandedObject,
  ExpandedType,
  type ExpandedTypeName,
  expandedTypeName,
  isExpandedType,
  type UnknownExpanded,
  type UnknownTypeUrl,
  type User,
} from '../schemas/expanded.ts';
export type { FindingTransform, FindingTransformationRule } from '../schemas/finding-rule.ts';
export {
  type EnumInput,
  isKnownEnumValue,
  type OpenEnum,
  type Unlisted,
  unlisted,
} from '../schemas/open-enum.ts';
export type { Policy, PolicyInstance, PolicyStep, PolicyStepInstance } from '../schemas/policy.ts';
export { unlistedTaskType } from '../schemas/request-values.ts';
export type { Task } from '../schemas/task.ts';
export type {
  ExpandedEntry,
  ParsedTaskTypeFilter,
  TaskExpandMask,
  TaskSearchRequest,
  TaskSearchResponse,
  TaskTypeFilter,
  TaskView,
  UnlistedTaskTypeFilter,
} from '../schemas/task-search.ts';
export type {
  ActionTaskType,
  CertifyTaskType,
  FindingTaskType,
  GrantTaskType,
  OffboardingTaskType,
  RevokeTaskType,
  TaskType,
  TaskTypeKind,
  UnknownTaskType,
} from '../schemas/task-type.ts';
export { IdGovClient } from './client.ts';
export type { ClientOptions } from './client-options.ts';
export type { RequestOptions } from './core/api-client.ts';
export type { APIPromise, ResponseInfo, WithResponse } from './core/api-promise.ts';
export type { BearerToken, ClientCredentials, Credentials, TokenProvider } from './core/auth/credentials.ts';
export type { Awaitable } from './core/awaitable.ts';
export {
  AbortError,
  ConfigurationError,
  ConnectionError,
  IdGovError,
  type IdGovErrorOptions,
  PaginationError,
  type RequestSummary,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  TokenProviderError,
  type ValidationIssue,
} from './core/errors/errors.ts';
export {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  UnprocessableEntityError,
} from './core/errors/status-errors.ts';
export type {
  ClientEvents,
  PageEvent,
  RequestEndEvent,
  RequestEvent,
  RequestIdentity,
  ResponseEvent,
  RetryEvent,
  TokenEvent,
  TransportEvents,
} from './core/events.ts';
export type { HookHandlers, Hooks } from './core/hooks.ts';
export type { Logger, LogLevel } from './core/logger.ts';
export type { Page } from './core/paging/page.ts';
export type { PagePromise, PagingOptions } from './core/paging/page-promise.ts';
export type { CallOptions, TransportOptions } from './core/transport/transport-options.ts';
export type { AppEntitlements } from './resources/app-entitlements.ts';
export {
  type ExpandedField,
  type ExpandedResult,
  type ExpectedExpanded,
  type ListExpandedField,
  resolveExpanded,
  type SingleExpandedField,
} from './resources/expanded.ts';
export {
  type FieldChange,
  type FindingRulesPreview,
  type PreviewFinding,
  type PreviewRule,
  previewFindingRules,
  type RuleTrace,
} from './resources/finding-rule-preview.ts';
export type { FindingRules } from './resources/finding-rules.ts';
export type { TaskSearch, TaskSearchOptions } from './resources/task-search.ts';
export { StoreError } from './stores/store-error.ts';
export { VERSION } from './version.ts';
