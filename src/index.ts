/**
 * `@idgov/sdk`: the typed client of the identity-governance API.
 *
 * @module @idgov/sdk
 */

export * from '../schemas/index.ts';
export { type ClientOptions, IdGovClient } from './client.ts';
export type { RequestOptions } from './core/api-client.ts';
export { APIPromise, type ResponseInfo, type WithResponse } from './core/api-promise.ts';
export type { BearerToken, ClientCredentials, Credentials, TokenProvider } from './core/auth.ts';
export {
  AbortError,
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  IdGovError,
  InternalServerError,
  NotFoundError,
  PaginationError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  type RequestSummary,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  UnprocessableEntityError,
} from './core/errors.ts';
export type { CallOptions, TransportOptions } from './core/http.ts';
export type { Logger, LogLevel } from './core/logger.ts';
export { type Page, PagePromise, type PagingOptions } from './core/paging.ts';
export type { ValidationIssue } from './core/validation.ts';
export { AppEntitlements } from './resources/app-entitlements.ts';
export {
  type ExpandedField,
  type ExpandedResult,
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
export { FindingRules } from './resources/finding-rules.ts';
export { TaskSearch, type TaskSearchOptions } from './resources/task-search.ts';
export { VERSION } from './version.ts';
export * from './webhooks/index.ts';
