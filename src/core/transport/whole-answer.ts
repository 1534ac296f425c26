/**
 * One attempt's `fetch` as ky calls it: the request sent as the SDK built it, its answer read whole
 * within the attempt, and the attempt reported.
 *
 * @module
 */

import { type RequestSummary, ResponseTooLargeError } from '../errors/errors.ts';
import type { AttemptRecorder } from './attempt-report.ts';
import type { HttpRequest } from './http-request.ts';
import { BytesCollector, type DecodedBody, readChunks, TextCollector } from './read-body.ts';
import { requestIdOf } from './request-id.ts';

// The text of an answer the caller uses, decoded where it was read (fetchWhole) and found by the
// Response that stands for it: no second copy into a Response body and no second decode.
const decodedBodies = new WeakMap<Response, DecodedBody>();

/** ky's bound on an error body, kept: past it the body is dropped and the status error stands alone. */
const MAX_ERROR_BODY_BYTES = 10 * 1024 * 1024;
// Statuses whose Response may not have a body.
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** What every attempt of one request shares. */
export interface Sending {
  /** The caller's `fetch`; the global one when undefined. */
  readonly fetch: typeof globalThis.fetch | undefined;
  readonly request: HttpRequest;
  /** `maxResponseBytes`. */
  readonly limit: number;
  readonly what: RequestSummary;
  readonly attempts: AttemptRecorder;
}

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
export function fetchWhole(sending: Sending): typeof globalThis.fetch {
  const { attempts } = sending;
  return async (input, init) => {
    const attempt = attempts.current;
    try {
      const { response, bytes } = await fetchAndRead(sending, input as Request, init, (answer) =>
        attempts.answered(attempt, answer),
      );
      attempts.settle(attempt, undefined, bytes);
      return response;
    } catch (error) {
      attempts.settle(attempt, { attemptSignal: (input as Request).signal });
      throw error;
    }
  };
}

/** One attempt's fetch, its answer read whole (see {@link fetchWhole}). */
async function fetchAndRead(
  { fetch, request, limit, what }: Sending,
  built: Request,
  init: RequestInit | undefined,
  answered: (answer: Response) => void,
): Promise<{ response: Response; bytes: number }> {
  // ky hands over the Request it built: its signal (this attempt's timeout and the caller's abort)
  // and headers (the token its hooks set); `init` holds only options ky does not know. The headers
  // go as this attempt's snapshot: the Headers object stays ky's, which clones and changes it.
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
  answered(response);
  // A browser's refused redirect: status 0 and no body, which a new Response cannot have.
  if (response.type === 'opaqueredirect') return { response, bytes: 0 };
  const used = response.ok || (request.acceptStatuses?.includes(response.status) ?? false);
  const answer = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (used && request.statusOnly) {
    response.body?.cancel().catch(() => {});
    return { response: new Response(null, answer), bytes: 0 };
  }
  if (used) {
    const collector = new TextCollector();
    const read = await readChunks(response, limit, collector, signal);
    if (read === undefined) {
      throw new ResponseTooLargeError(
        `The answer to ${what.method} ${what.path} is larger than maxResponseBytes (${limit} bytes); stopped reading. Raise maxResponseBytes only if the service really sends answers this large.`,
        limit,
        what,
        response.status,
        requestIdOf(response.headers),
      );
    }
    const body = collector.finish();
    if (body.text === '' || NULL_BODY_STATUSES.has(response.status)) {
      return { response: new Response(null, answer), bytes: read };
    }
    const decoded = new Response(null, answer);
    decodedBodies.set(decoded, body);
    return { response: decoded, bytes: read };
  }
  const collector = new BytesCollector();
  // Past ky's 10 MiB an error's body is dropped: the status error stands alone.
  const read = await readChunks(response, MAX_ERROR_BODY_BYTES, collector, signal);
  const bytes = read === undefined ? undefined : collector.finish();
  const empty = !bytes?.byteLength || NULL_BODY_STATUSES.has(response.status);
  return { response: new Response(empty ? null : bytes, answer), bytes: read ?? MAX_ERROR_BODY_BYTES };
}

/**
 * The text `fetchWhole` decoded for `response`, handed over once: the entry is dropped at once, as
 * the Response stays reachable from ky's and fetch's bookkeeping until a full collection, and the
 * text with it.
 */
export function takeDecodedBody(response: Response): DecodedBody {
  const body = decodedBodies.get(response) ?? { text: '', protoFree: true };
  decodedBodies.delete(response);
  return body;
}
