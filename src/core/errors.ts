/**
 * Every error the SDK throws, as one small class tree. API errors are built in one place,
 * {@link makeAPIError}, from the status; nothing else picks an error class by status.
 * Messages never carry credentials: headers sent are never stored, bodies of the token endpoint are redacted.
 *
 * @module
 */
import type { ValidationIssue } from './validation.ts';

const PREFIX = '@idgov/sdk: ';

/**
 * Base class of every error thrown by this SDK.
 *
 * @group Errors
 */
export class IdGovError extends Error {
  override name = 'IdGovError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(PREFIX + message, options);
  }
}

/**
 * Options were wrong when a client, resource or sender was created: fix the code or the environment.
 *
 * @group Errors
 */
export class ConfigurationError extends IdGovError {
  override name = 'ConfigurationError';
}

/**
 * A request was not sent because an argument is invalid; `field` names it. Nothing reached the network.
 *
 * @group Errors
 */
export class RequestValidationError extends IdGovError {
  override name = 'RequestValidationError';
  /** The path of the first invalid field, e.g. `pageSize` or `taskTypes.0`. */
  readonly field: string;
  /** Every problem found. */
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, field: string, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.field = field;
    this.issues = issues;
  }
}

/**
 * The service answered 2xx but the body is not what the schema says; `rawBody` keeps what was received.
 *
 * @group Errors
 */
export class ResponseValidationError extends IdGovError {
  override name = 'ResponseValidationError';
  /** The path of the first unexpected field (empty for a body that is not JSON at all). */
  readonly path: string;
  /** Every problem found. */
  readonly issues: readonly ValidationIssue[];
  /** The body as received (secrets of the token endpoint redacted). */
  readonly rawBody: string;
  constructor(message: string, path: string, issues: readonly ValidationIssue[], rawBody: string) {
    super(message);
    this.path = path;
    this.issues = issues;
    this.rawBody = rawBody;
  }
}

/**
 * The service repeated a page token: paging stopped rather than loop or return tasks twice.
 *
 * @group Errors
 */
export class PaginationError extends IdGovError {
  override name = 'PaginationError';
}

/**
 * No answer: the connection failed (DNS, refused, reset). Retried already, up to `maxRetries`.
 *
 * @group Errors
 */
export class ConnectionError extends IdGovError {
  override name = 'ConnectionError';
}

/**
 * An attempt took longer than `timeout`. Retried already, up to `maxRetries`.
 *
 * @group Errors
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/**
 * The caller's `AbortSignal` fired; `cause` is the signal's reason.
 *
 * @group Errors
 */
export class AbortError extends IdGovError {
  override name = 'AbortError';
}

/**
 * What the failed request was, for messages and logs (never its headers).
 *
 * @group Errors
 */
export interface RequestSummary {
  /** HTTP method. */
  readonly method: string;
  /** URL path, without query. */
  readonly path: string;
}

/**
 * Fields of every {@link APIError}.
 *
 * @group Errors
 */
export interface APIErrorInit {
  /** HTTP status. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The body: parsed JSON, or text when it was not JSON. */
  readonly body: unknown;
  /** The request that failed. */
  readonly request: RequestSummary;
}

/**
 * The service answered with a non-2xx status. A subclass per status family narrows it.
 *
 * @group Errors
 */
export class APIError extends IdGovError {
  override name = 'APIError';
  /** HTTP status. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The body: parsed JSON, or text when it was not JSON. */
  readonly body: unknown;
  /** The service's request id (`x-request-id` or `request-id`), to quote to its support. */
  readonly requestId: string | undefined;
  /** The request that failed. */
  readonly request: RequestSummary;
  constructor(message: string, init: APIErrorInit) {
    super(message);
    this.status = init.status;
    this.headers = init.headers;
    this.body = init.body;
    this.request = init.request;
    this.requestId = init.headers.get('x-request-id') ?? init.headers.get('request-id') ?? undefined;
  }
}

/**
 * 400: the service rejected the request as invalid.
 *
 * @group Errors
 */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}

/**
 * 401 (or a 400 from the token endpoint): the credentials were refused. `oauthError` and
 * `oauthErrorDescription` carry the token endpoint's RFC 6749 `error` and `error_description`.
 *
 * @group Errors
 */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
  /** RFC 6749 `error`, e.g. `invalid_client`, when the token endpoint answered. */
  readonly oauthError: string | undefined;
  /** RFC 6749 `error_description`. */
  readonly oauthErrorDescription: string | undefined;
  constructor(message: string, init: APIErrorInit) {
    super(message, init);
    const body = init.body as { error?: unknown; error_description?: unknown } | null;
    this.oauthError = typeof body?.error === 'string' ? body.error : undefined;
    this.oauthErrorDescription =
      typeof body?.error_description === 'string' ? body.error_description : undefined;
  }
}

/**
 * 403: authenticated, but not allowed.
 *
 * @group Errors
 */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}

/**
 * 404: no such resource.
 *
 * @group Errors
 */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}

/**
 * 409: conflicts with the current state (for webhooks: the event was already delivered).
 *
 * @group Errors
 */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}

/**
 * 422: well-formed but semantically invalid.
 *
 * @group Errors
 */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}

/**
 * 429: rate limited after every retry, or asked to wait longer than the SDK will sleep.
 *
 * @group Errors
 */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
}

/**
 * 5xx: the service failed after every retry.
 *
 * @group Errors
 */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/**
 * Which endpoint answered, where it changes the error class or the advice.
 *
 * @group Errors
 */
export type ErrorContext = {
  /** The token endpoint: its 400 and 401 are both authentication failures. */
  readonly tokenEndpoint?: boolean;
  /** Advice to append for this status, if the caller knows the usual cause. */
  readonly hint?: (status: number, body: unknown) => string | undefined;
};

const GENERIC_HINT: Record<number, string> = {
  400: 'Check the request fields against the API reference.',
  401: 'Check the credentials: the token may be wrong, revoked or for another tenant.',
  403: 'The credentials are valid but lack the permission; ask a tenant administrator.',
  404: 'Check the ID and the base URL (one tenant per base URL).',
  429: 'Rate limited: slow down, or raise maxRetries.',
};

function serviceMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 200) || undefined;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['error_description', 'message', 'error']) {
      if (typeof b[key] === 'string' && b[key]) return b[key] as string;
    }
  }
  return undefined;
}

/**
 * Builds the {@link APIError} subclass for a status. The one place that maps statuses to classes.
 *
 * @group Errors
 */
export function makeAPIError(init: APIErrorInit, context: ErrorContext = {}, note?: string): APIError {
  const { status, request } = init;
  const said = serviceMessage(init.body);
  const hint = note ?? context.hint?.(status, init.body) ?? GENERIC_HINT[status] ?? '';
  const where = context.tokenEndpoint ? 'token endpoint' : `${request.method} ${request.path}`;
  const message = `${status} from ${where}${said ? `: ${said}` : ''}.${hint ? ` ${hint}` : ''}`;
  if (context.tokenEndpoint && (status === 400 || status === 401)) {
    return new AuthenticationError(
      `${message} Check IDGOV_CLIENT_ID / IDGOV_CLIENT_SECRET (or the clientId and clientSecret options).`,
      init,
    );
  }
  if (status === 400) return new BadRequestError(message, init);
  if (status === 401) return new AuthenticationError(message, init);
  if (status === 403) return new PermissionDeniedError(message, init);
  if (status === 404) return new NotFoundError(message, init);
  if (status === 409) return new ConflictError(message, init);
  if (status === 422) return new UnprocessableEntityError(message, init);
  if (status === 429) return new RateLimitError(message, init);
  if (status >= 500) return new InternalServerError(message, init);
  return new APIError(message, init);
}
