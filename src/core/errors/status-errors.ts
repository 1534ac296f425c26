/**
 * The errors of the service's non-2xx answers, a class per status family. `makeAPIError`
 * (api-error.ts) picks the class; nothing else does.
 *
 * @module
 */

import { requestIdOf } from '../transport/request-id.ts';
import { IdGovError, type RequestSummary } from './errors.ts';

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
  /** The request that failed. */
  readonly request: RequestSummary;
  constructor(message: string, init: APIErrorInit) {
    super(message, { requestId: requestIdOf(init.headers) });
    this.status = init.status;
    this.headers = init.headers;
    this.body = init.body;
    this.request = init.request;
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
