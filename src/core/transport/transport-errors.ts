/**
 * ky's errors, and the fetch's under them, turned into the SDK's: each names the request, the
 * attempts made and what to check, and never carries the request (its headers hold credentials).
 *
 * @module
 */
import { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import { makeAPIError } from '../errors/api-error.ts';
import {
  AbortError,
  ConnectionError,
  IdGovError,
  type RequestSummary,
  TimeoutError,
} from '../errors/errors.ts';
import type { HttpRequest } from './http-request.ts';
import { BrokenAnswerError, exceededRetryAfterCap, isRetryableStatus } from './retry.ts';

// Past this, a wait is said as such: `Retry-After: 1000...0` would read as Infinity s.
const DAY_MS = 86_400_000;

/** The socket or TLS error code under a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * What to say of a failure's cause: its code says what failed (DNS, refused, TLS); without one, its
 * message (past fetch's own "fetch failed", which says nothing, to its cause: "bad port"), cut short
 * and printable.
 */
export function causeReason(cause: unknown): { code: string | undefined; reason: string } {
  const code = errorCode(cause);
  let innermost = cause;
  for (let depth = 0; depth < 5 && (innermost as Error | null)?.message === 'fetch failed'; depth += 1) {
    const next = (innermost as { cause?: unknown }).cause;
    if (typeof (next as Error | undefined)?.message !== 'string') break;
    innermost = next;
  }
  const message = String((innermost as Error)?.message ?? innermost);
  const reason =
    code ??
    (message === 'bad port'
      ? "bad port: fetch never sends to this port (the Fetch standard blocks it); use the service's own port"
      : message.replace(/[^\x20-\x7e]/g, ' ').slice(0, 200));
  return { code, reason };
}

/** The SDK's error for what ky (or the fetch under it) threw; `timeout` is each attempt's, in ms. */
export function translate(
  error: unknown,
  request: HttpRequest,
  what: RequestSummary,
  attempts: number,
  timeout: number,
): IdGovError {
  if (error instanceof IdGovError) return error;
  if (request.signal?.aborted) {
    return new AbortError(`${what.method} ${what.path} was aborted by the caller.`, {
      cause: request.signal.reason,
    });
  }
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const host = new URL(request.url).host;
  if (isHTTPError(error)) {
    const { response } = error;
    // A 401 or 404 keeps its own advice: waiting would not change it.
    const wait = isRetryableStatus(response.status) ? exceededRetryAfterCap(error) : undefined;
    const note =
      wait === undefined
        ? undefined
        : `The service asked to wait ${wait > DAY_MS ? 'more than a day' : `${Math.ceil(wait / 1000)} s`}, longer than the SDK's 60 s cap; try again later.`;
    // A browser hides a refused redirect behind an `opaqueredirect` answer of status 0: report it as the 302 it was.
    const status = response.type === 'opaqueredirect' ? 302 : response.status;
    const init = { status, headers: response.headers, body: error.data, request: what };
    return makeAPIError(init, request.errorContext, note);
  }
  if (isTimeoutError(error) || (error instanceof DOMException && error.name === 'TimeoutError')) {
    return new TimeoutError(
      `${what.method} ${what.path} timed out after ${tries} of ${timeout} ms each; raise timeout or check the network.`,
    );
  }
  if (error instanceof BrokenAnswerError) {
    const code = errorCode(error.cause);
    return new ConnectionError(
      `${host} answered ${what.method} ${what.path}, but the connection broke while reading the answer${code ? ` (${code})` : ''}, after ${tries}. Check the network or a proxy between you and the service.`,
      { cause: error.cause, code, requestId: error.requestId },
    );
  }
  // NetworkError carries the socket-level cause (ECONNREFUSED, reset); never the request, whose headers hold tokens.
  const cause = isNetworkError(error) ? error.cause : error;
  const { code, reason } = causeReason(cause);
  return new ConnectionError(
    `Could not reach ${host} for ${what.method} ${what.path} after ${tries}: ${reason}. Check the base URL and the network.`,
    { cause, code },
  );
}
