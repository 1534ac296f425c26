/**
 * Every error the SDK throws, as one small class tree: the base and the errors raised on this side
 * of the wire (here), and one per status family of the service's answers (status-errors.ts), built
 * in one place, `makeAPIError` (api-error.ts); nothing else picks an error class by status.
 * Messages never carry credentials: headers sent are never stored, bodies of the token endpoint are redacted.
 *
 * @module
 */

const PREFIX = '@idgov/sdk: ';

/**
 * One problem found by a schema: where, and what was expected.
 *
 * @group Errors
 */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `list.3.task.type`. */
  readonly path: string;
  /** What was wrong, in words. */
  readonly message: string;
}

/**
 * What an {@link IdGovError} may be built with besides its message.
 *
 * @group Errors
 */
export interface IdGovErrorOptions {
  /** The error this one explains. */
  readonly cause?: unknown;
  /** The service's request ID of the answer the error is about. */
  readonly requestId?: string | undefined;
}

/**
 * Base class of every error thrown by this SDK.
 *
 * @group Errors
 */
export class IdGovError extends Error {
  override name = 'IdGovError';
  /**
   * The service's request ID (`x-request-id` or `request-id`) of the answer this error is about,
   * to quote to its support; undefined when there was no answer, or it carried none.
   */
  readonly requestId: string | undefined;
  constructor(message: string, options?: IdGovErrorOptions) {
    super(PREFIX + message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = options?.requestId;
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
  constructor(
    message: string,
    path: string,
    issues: readonly ValidationIssue[],
    rawBody: string,
    requestId?: string | undefined,
  ) {
    super(message, { requestId });
    this.path = path;
    this.issues = issues;
    this.rawBody = rawBody;
  }
}

/**
 * Paging could not go on as the service answered: it repeated a page token (paging stopped rather
 * than loop or return tasks twice), or, in a task sync, its tokens kept being refused before a
 * window it pages out of creation order reached its last page.
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
  constructor(message: string, limit: number, request: RequestSummary, status?: number, requestId?: string) {
    super(message, { requestId });
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
  /**
   * The system's error code, when the runtime gave one: `ECONNREFUSED`, `ECONNRESET`, `ENOTFOUND`,
   * `ETIMEDOUT`, `CERT_HAS_EXPIRED`... (also in the message).
   */
  readonly code: string | undefined;
  constructor(message: string, options?: IdGovErrorOptions & { readonly code?: string | undefined }) {
    super(message, options);
    this.code = options?.code;
  }
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
 * The token provider passed as `credentials` threw or rejected; `cause` is what it threw. No
 * request was sent: check what the provider reads from (a vault, a secret store, a file).
 *
 * @group Errors
 */
export class TokenProviderError extends IdGovError {
  override name = 'TokenProviderError';
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
