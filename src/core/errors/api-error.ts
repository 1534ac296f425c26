/**
 * Builds the {@link APIError} of an answer: the class for its status, the service's words made safe
 * to quote (secrets redacted, unprintable characters dropped, cut short) and advice. Only the send
 * path needs it, so it loads with the first request instead of with the SDK.
 *
 * @module
 */

import { withoutEchoes } from '../../internal/echoes.ts';
import {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorContext,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  UnprocessableEntityError,
} from './status-errors.ts';

const GENERIC_HINT: Record<number, string> = {
  400: 'Check the request fields against the API reference.',
  401: 'Check the credentials: the token may be wrong, revoked or for another tenant.',
  403: 'The credentials are valid but lack the permission; ask a tenant administrator.',
  404: 'Check the ID and the base URL (one tenant per base URL).',
  429: 'Rate limited: slow down, or raise maxRetries.',
};

const REDIRECT_HINT =
  'The SDK follows no redirect, so credentials never leave the configured host: set baseUrl to the host the service moved to, if you trust it.';

/** The Location of a redirect as origin and path (no query: it is not ours to repeat), or undefined. */
function redirectTarget(init: APIErrorInit): string | undefined {
  const location = init.headers.get('location');
  if (!location || !init.request.url) return undefined;
  try {
    const url = new URL(location, init.request.url);
    // Another scheme (javascript:, data:) has no origin ("null"): only the scheme is said.
    if (!/^https?:$/.test(url.protocol)) return `${url.protocol.replace(/[^\w+.:-]/g, '')}…`;
    return (url.origin + url.pathname).replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)).slice(0, 300);
  } catch {
    return undefined;
  }
}

const REDACTED = '[redacted]';
/** The longest text of the service's quoted in a message. */
const MAX_QUOTE = 200;
// Controls, format characters (bidi overrides, zero-width), line separators, surrogates, private
// use and unassigned: nothing the service says may forge a log line or hide text in a terminal.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;
// Deeper than this, a hostile body is cut rather than walked (a stack overflow would escape as a RangeError).
const MAX_DEPTH = 64;

/** `text` with each secret, in every form an answer may echo it (`echoPattern`), redacted. */
function redact(text: string, secrets: readonly string[]): string {
  return withoutEchoes(text, secrets, REDACTED);
}

/**
 * `value` with every string (keys too) redacted; what lies deeper than {@link MAX_DEPTH} is dropped,
 * and so are `__proto__` keys, as from every answer the SDK parses: service data never becomes an
 * object's prototype when a caller copies the body with `Object.assign`.
 */
function redactDeep(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[dropped: nested too deep]';
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== '__proto__')
      .map(([key, item]) => [redact(key, secrets), redactDeep(item, secrets, depth + 1)]),
  );
}

/** The answer's headers, with any value that quotes a secret redacted (a copy only when one does). */
function redactHeaders(headers: Headers, secrets: readonly string[]): Headers {
  let copy: Headers | undefined;
  for (const [name, value] of headers) {
    const clean = redact(value, secrets);
    if (clean === value) continue;
    copy ??= new Headers(headers);
    copy.set(name, clean);
  }
  return copy ?? headers;
}

/**
 * Text from the service made fit for a message: secrets redacted first (so a cut cannot leave half
 * of one), every unprintable character a space, runs of space one, at most {@link MAX_QUOTE} characters.
 */
function quotable(text: string, secrets: readonly string[]): string | undefined {
  const clean = redact(text, secrets).replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > MAX_QUOTE ? `${clean.slice(0, MAX_QUOTE)}…` : clean || undefined;
}

function serviceMessage(body: unknown, secrets: readonly string[]): string | undefined {
  if (typeof body === 'string') return quotable(body, secrets);
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['error_description', 'message', 'error']) {
      if (typeof b[key] === 'string' && b[key]) return quotable(b[key] as string, secrets);
    }
  }
  return undefined;
}

/** A 3xx that points elsewhere. A 304 Not Modified answers a conditional request (the SDK sends none): not a redirect. */
function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

const NOT_MODIFIED_HINT =
  'The SDK sends no conditional request, so this answer is unexpected: check for a caching proxy between you and the service.';

/**
 * The token endpoint's 400 or 401 (RFC 6749 5.2): the client credentials were refused, said with
 * the OAuth error and its description; no token was involved yet.
 */
function refusedCredentials(init: APIErrorInit, secrets: readonly string[]): AuthenticationError {
  const body = init.body as { error?: unknown; error_description?: unknown } | null;
  const code = typeof body?.error === 'string' ? quotable(body.error, secrets) : undefined;
  const description =
    typeof body?.error_description === 'string' ? quotable(body.error_description, secrets) : undefined;
  const oauth = code
    ? ` (${code}${description ? `: ${description}` : ''})`
    : description
      ? ` (${description})`
      : '';
  return new AuthenticationError(
    `${init.status} from token endpoint: the client credentials were refused${oauth}. Check IDGOV_CLIENT_ID / IDGOV_CLIENT_SECRET (or the clientId and clientSecret options) and the base URL's tenant.`,
    init,
  );
}

/**
 * Builds the {@link APIError} subclass for a status. The one place that maps statuses to classes.
 *
 * @group Errors
 */
export function makeAPIError(answer: APIErrorInit, context: ErrorContext = {}, note?: string): APIError {
  const secrets = (context.secrets?.() ?? []).filter((secret) => secret !== '');
  const init = secrets.length
    ? { ...answer, body: redactDeep(answer.body, secrets), headers: redactHeaders(answer.headers, secrets) }
    : answer;
  const { status, request } = init;
  const redirect = isRedirect(status);
  const target = redirect ? redirectTarget(init) : undefined;
  const location = target === undefined ? undefined : redact(target, secrets);
  const said = redirect
    ? `redirect to ${location ?? 'an undisclosed location'}, not followed`
    : serviceMessage(init.body, secrets);
  if (context.tokenEndpoint && (status === 400 || status === 401)) return refusedCredentials(init, secrets);
  const hint =
    note ??
    context.hint?.(status, init.body) ??
    (redirect ? REDIRECT_HINT : status === 304 ? NOT_MODIFIED_HINT : GENERIC_HINT[status]) ??
    '';
  const where = context.tokenEndpoint ? 'token endpoint' : `${request.method} ${request.path}`;
  const message = `${status} from ${where}${said ? `: ${said}` : ''}.${hint ? ` ${hint}` : ''}`;
  if (redirect) return new RedirectError(message, init, location);
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
