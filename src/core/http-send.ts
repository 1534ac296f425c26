/**
 * The send path of `HttpTransport`: ky with the SDK's retry policy, per-attempt timeouts that
 * cover reading the body, the answer-size cap, and ky's errors turned into the SDK's. Loaded with
 * the first request (see http.ts), as ky is.
 *
 * @module
 */
import type { KyInstance } from 'ky';
import { makeAPIError } from './api-error.ts';
import {
  AbortError,
  ConnectionError,
  IdGovError,
  type RequestSummary,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
} from './errors.ts';
import type { HttpRequest, HttpResponse, ResolvedTransportOptions } from './http.ts';
import { type KyModule, loadKy } from './ky.ts';
import { BytesCollector, type DecodedBody, readChunks, TextCollector } from './read-body.ts';
import { BrokenAnswerError, exceededRetryAfterCap, retryOptions } from './retry.ts';

// One ky instance for every transport: what differs per transport is passed per request.
let instance: KyInstance | undefined;

function summary(url: string, method: string): RequestSummary {
  const { origin, pathname } = new URL(url);
  return { method, path: pathname, url: origin + pathname };
}

/** ky's bound on an error body, kept: past it the body is dropped and the status error stands alone. */
const MAX_ERROR_BODY_BYTES = 10 * 1024 * 1024;
// Statuses whose Response may not have a body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

// The text of an answer the caller uses, decoded where it was read (fetchWhole) and found by the
// Response that stands for it: no second copy into a Response body and no second decode.
const decodedBodies = new WeakMap<Response, DecodedBody>();

/**
 * A `fetch` for ky that resolves only once the answer's body is read. ky times and retries the
 * whole `fetch` call, so one deadline per attempt runs from sending to the last byte, and a body
 * that breaks off or stalls is retried like a connection that did. The answer handed back is
 * buffered: an answer the caller uses (2xx, accepted) up to `maxResponseBytes`, past which it
 * fails; an error's up to ky's 10 MiB, past which it is dropped.
 *
 * It also carries the body. ky's Request has none: with one, ky clones it before every attempt (for
 * retries), which tees the body's stream, the fetch reads the tee back, and ky then cancels the
 * consumed original, which throws and catches an error; all of it on every request, for a body that
 * is a string or bytes sent as they are.
 */
function fetchWhole(
  fetch: typeof globalThis.fetch | undefined,
  request: HttpRequest,
  limit: number,
  what: RequestSummary,
): typeof globalThis.fetch {
  return async (input, init) => {
    // ky hands over the Request it built: its signal (this attempt's timeout and the caller's abort)
    // and headers (the token its hooks set); `init` holds only options ky does not know. The headers
    // go as this attempt's snapshot: the Headers object stays ky's, which clones and changes it.
    const built = input as Request;
    const { url, signal } = built;
    const headers = Object.fromEntries(built.headers);
    const sent = {
      ...init,
      method: built.method,
      headers,
      body: request.body,
      signal,
      redirect: 'manual',
    } as const;
    // A custom fetch gets a Request, which its author may expect (and which, logged, shows no token
    // form with the client secret); the global fetch takes the URL and init without one being built.
    const response = await (fetch ? fetch(new Request(url, sent)) : globalThis.fetch(url, sent));
    // A browser's refused redirect: status 0 and no body, which a new Response cannot have.
    if (response.type === 'opaqueredirect') return response;
    const used = response.ok || (request.acceptStatuses?.includes(response.status) ?? false);
    const answer = { status: response.status, statusText: response.statusText, headers: response.headers };
    if (used && request.statusOnly) {
      response.body?.cancel().catch(() => {});
      return new Response(null, answer);
    }
    if (used) {
      const collector = new TextCollector();
      if (!(await readChunks(response, limit, collector, signal))) {
        throw new ResponseTooLargeError(
          `The answer to ${what.method} ${what.path} is larger than maxResponseBytes (${limit} bytes); stopped reading. Raise maxResponseBytes only if the service really sends answers this large.`,
          limit,
          what,
          response.status,
        );
      }
      const body = collector.finish();
      if (body.text === '' || NULL_BODY_STATUSES.has(response.status)) return new Response(null, answer);
      const decoded = new Response(null, answer);
      decodedBodies.set(decoded, body);
      return decoded;
    }
    const collector = new BytesCollector();
    // Past ky's 10 MiB an error's body is dropped: the status error stands alone.
    const bytes = (await readChunks(response, MAX_ERROR_BODY_BYTES, collector, signal))
      ? collector.finish()
      : undefined;
    const empty = !bytes?.byteLength || NULL_BODY_STATUSES.has(response.status);
    return new Response(empty ? null : bytes, answer);
  };
}

/** The socket or TLS error code under a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...). */
function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/**
 * The headers sent: the caller's, then the SDK's replacing any of the same name whatever its
 * casing (`Headers` merges by name; an object spread would send both and the server would see
 * `text/plain, application/json`). `Accept` is always JSON, as the SDK parses the answer; a
 * caller's `User-Agent` goes before the SDK's, the more specific product first (RFC 9110 10.1.5);
 * `Authorization` is set before each attempt, over any other.
 */
function headersFor(request: HttpRequest, userAgent: string): Headers {
  let headers: Headers;
  try {
    headers = new Headers(request.callerHeaders);
  } catch (error) {
    const reason = String((error as Error)?.message)
      .replace(/[^\x20-\x7e]/g, ' ')
      .slice(0, 200);
    throw new RequestValidationError(
      `headers are not valid HTTP headers (${reason}): use ASCII names and values without line breaks.`,
      'headers',
    );
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
  const theirs = headers.get('user-agent');
  headers.set('user-agent', theirs ? `${theirs} ${userAgent}` : userAgent);
  headers.set('accept', 'application/json');
  return headers;
}

/** Sends `request`, retrying as configured, and reads the body. Throws an {@link IdGovError}. */
export async function sendRequest(
  settings: ResolvedTransportOptions,
  request: HttpRequest,
): Promise<HttpResponse> {
  const { logger } = settings;
  const timeout = request.timeout ?? settings.timeout;
  const what = summary(request.url, request.method);
  let attempts = 0;
  const prepare = async (headers: Headers) => {
    attempts += 1;
    await request.beforeAttempt?.(headers, attempts);
  };
  const started = Date.now();
  let ky: KyModule | undefined;
  try {
    const headers = headersFor(request, settings.userAgent);
    ky = await loadKy();
    const { isHTTPError } = ky;
    instance ??= ky.default.create({ throwHttpErrors: true });
    const response = await instance(request.url, {
      method: request.method,
      headers,
      signal: request.signal,
      timeout,
      fetch: fetchWhole(settings.fetch, request, settings.maxResponseBytes, what),
      // Never follow: a 307/308 would replay the client secret or the token to wherever it points,
      // and any redirect would make us accept answers from a host the user did not configure.
      redirect: 'manual',
      throwHttpErrors: (status) => !request.acceptStatuses?.includes(status),
      retry: retryOptions(request.maxRetries ?? settings.maxRetries, ky),
      hooks: {
        beforeRequest: [({ request: r }) => prepare(r.headers)],
        beforeRetry: [
          ({ request: r, error, retryCount }) => {
            const reason = isHTTPError(error) ? `status ${error.response.status}` : error.name;
            logger.info(`retrying ${what.method} ${what.path} after ${reason}`, { retry: retryCount });
            return prepare(r.headers);
          },
        ],
      },
    });
    // Buffered by fetchWhole within the attempt's timeout; empty when it found no body.
    const { text, protoFree } = decodedBodies.get(response) ?? { text: '', protoFree: true };
    // Let go at once: the Response stays reachable from ky's and fetch's bookkeeping until a full
    // collection, and the text with it; measured, every broad page's text then outlived the young
    // generation (600 MB promoted over 1,000 pages, against 40 MB for a bare fetch loop).
    decodedBodies.delete(response);
    logger.debug(`${what.method} ${what.path} ${response.status}`, { ms: Date.now() - started, attempts });
    return { status: response.status, headers: response.headers, text, protoFree, attempts };
  } catch (error) {
    throw translate(error, request, what, attempts, ky, settings.timeout);
  }
}

/** The SDK's error for what ky (or the fetch under it) threw. */
function translate(
  error: unknown,
  request: HttpRequest,
  what: RequestSummary,
  attempts: number,
  ky: KyModule | undefined,
  timeout: number,
): IdGovError {
  if (error instanceof IdGovError) return error;
  if (request.signal?.aborted) {
    return new AbortError(`${what.method} ${what.path} was aborted by the caller.`, {
      cause: request.signal.reason,
    });
  }
  if (!ky) {
    return new ConnectionError(
      `Could not load ky, the SDK's HTTP layer, for ${what.method} ${what.path}: ${(error as Error)?.message ?? error}. In a browser, check that the bundle's chunks are served.`,
      { cause: error },
    );
  }
  const { isHTTPError, isNetworkError, isTimeoutError } = ky;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const host = new URL(request.url).host;
  if (isHTTPError(error)) {
    const { response } = error;
    const wait = exceededRetryAfterCap(error);
    const note =
      wait === undefined
        ? undefined
        : `The service asked to wait ${Math.ceil(wait / 1000)} s, longer than the SDK's 60 s cap; try again later.`;
    // A browser hides a refused redirect behind an `opaqueredirect` answer of status 0: report it as the 302 it was.
    const status = response.type === 'opaqueredirect' ? 302 : response.status;
    const init = { status, headers: response.headers, body: error.data, request: what };
    return makeAPIError(init, request.errorContext, note);
  }
  if (isTimeoutError(error) || (error instanceof DOMException && error.name === 'TimeoutError')) {
    return new TimeoutError(
      `${what.method} ${what.path} timed out after ${tries} of ${request.timeout ?? timeout} ms each; raise timeout or check the network.`,
    );
  }
  if (error instanceof BrokenAnswerError) {
    const code = errorCode(error.cause);
    return new ConnectionError(
      `${host} answered ${what.method} ${what.path}, but the connection broke while reading the answer${code ? ` (${code})` : ''}, after ${tries}. Check the network or a proxy between you and the service.`,
      { cause: error.cause },
    );
  }
  // NetworkError carries the socket-level cause (ECONNREFUSED, reset); never the request, whose headers hold tokens.
  const cause = isNetworkError(error) ? error.cause : error;
  // The code says what failed (DNS, refused, TLS); a message is quoted only without one, cut short.
  const code = errorCode(cause);
  const reason =
    code ??
    String((cause as Error)?.message ?? cause)
      .replace(/[^\x20-\x7e]/g, ' ')
      .slice(0, 200);
  return new ConnectionError(
    `Could not reach ${host} for ${what.method} ${what.path} after ${tries}: ${reason}. Check the base URL and the network.`,
    { cause },
  );
}
