/**
 * Every error the SDK throws, as one small class tree. API errors are built in one place,
 * `makeAPIError` (api-error.ts, loaded with the first request), from the status; nothing else
 * picks an error class by status.
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

  /**
   * What `JSON.stringify(error)` shows: the name, the message and the error's own fields (status,
   * field, path...), which never hold a secret. `Error`'s message is not enumerable, so without
   * this a logged error would read `{"name":"..."}`.
   */
  toJSON(): Record<string, unknown> {
    const fields: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (!(key in fields) && !HIDDEN_FROM_JSON.has(key)) fields[key] = value;
    }
    return fields;
  }
}

// Left out of toJSON: `headers` serialise as `{}` anyway, and a raw body can be megabytes.
const HIDDEN_FROM_JSON = new Set(['headers', 'rawBody']);

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
  constructor(
    message: string,
    field: string,
    issues: readonly ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
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
  /** The body as received, with the token sent (and a token endpoint's whole answer) redacted. */
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
 * An answer was larger than `maxResponseBytes` (default 32 MiB): the SDK stopped reading it and
 * retries nothing. Raise the option only if the service really sends pages this large.
 *
 * @group Errors
 */
export class ResponseTooLargeError extends IdGovError {
  override name = 'ResponseTooLargeError';
  /** The limit in bytes that was exceeded. */
  readonly limit: number;
  /** The request whose answer was too large. */
  readonly request: RequestSummary;
  /** The status of that answer: a 200 too large to read was still accepted. */
  readonly status: number | undefined;
  constructor(message: string, limit: number, request: RequestSummary, status?: number) {
    super(message);
    this.limit = limit;
    this.request = request;
    this.status = status;
  }
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
  /** The URL's origin and path, without query (which may hold filters). */
  readonly url?: string | undefined;
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
 * 3xx but 304: the service redirected, and the SDK follows no redirect, so that neither the client secret
 * nor a token is ever sent to a URL you did not configure. `location` says where it pointed.
 *
 * @group Errors
 */
export class RedirectError extends APIError {
  override name = 'RedirectError';
  /** The redirect target (origin and path, without query), or undefined when the answer had none. */
  readonly location: string | undefined;
  constructor(message: string, init: APIErrorInit, location: string | undefined) {
    super(message, init);
    this.location = location;
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
  /**
   * Secrets the service might echo (the client secret, the token sent), read when the error is
   * built: each is replaced by `[redacted]` in the message and the body.
   */
  readonly secrets?: () => readonly string[];
};
