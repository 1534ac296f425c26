/**
 * The transport under every client and sender: ky for sending, retries (with backoff, jitter and
 * Retry-After) and per-attempt timeouts; the body read inside each attempt (whole-answer.ts), so
 * the timeout bounds it and a broken body is retried; every attempt reported; ky's errors turned
 * into the SDK's (transport-errors.ts).
 *
 * @module
 */
import ky from 'ky';
import { type IdGovError, type RequestSummary, RequestValidationError } from '../errors/errors.ts';
import { APIError } from '../errors/status-errors.ts';
import type { RequestIdentity, TransportEvents } from '../events.ts';
import type { Hooks } from '../hooks.ts';
import type { Logger } from '../logger.ts';
import { AttemptRecorder } from './attempt-report.ts';
import type { HttpRequest, HttpResponse } from './http-request.ts';
import { type RetryPlan, retryOptions } from './retry.ts';
import { translate } from './transport-errors.ts';
import {
  checkCallOptions,
  type ResolvedTransportOptions,
  resolveTransportOptions,
  type TransportOptions,
} from './transport-options.ts';
import { fetchWhole, takeDecodedBody } from './whole-answer.ts';

// One ky instance for every transport: what differs per transport is passed per request.
const instance = ky.create({ throwHttpErrors: true });

function summary(url: string, method: string): RequestSummary {
  const { origin, pathname } = new URL(url);
  return { method, path: pathname, url: origin + pathname };
}

/** The name (made printable) of the first caller header `Headers` refuses. */
function unsendableHeader(headers: Record<string, string> | undefined): string | undefined {
  for (const [name, value] of Object.entries(headers ?? {})) {
    try {
      new Headers([[name, value]]);
    } catch {
      return name.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
    }
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
  } catch {
    // Not the platform's message: it quotes the value, which may be a caller's secret.
    const name = unsendableHeader(request.callerHeaders);
    throw new RequestValidationError(
      `headers${name === undefined ? '' : `[${JSON.stringify(name)}]`} cannot be sent as an HTTP header: use ASCII names, and values without line breaks or control characters (the value is not quoted here, as it may be a secret).`,
      'headers',
    );
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
  const theirs = headers.get('user-agent');
  headers.set('user-agent', theirs ? `${theirs} ${userAgent}` : userAgent);
  headers.set('accept', 'application/json');
  return headers;
}

/**
 * Sends requests with the options of one component (a client, a webhook sender), resolved once.
 */
export class HttpTransport {
  readonly #settings: ResolvedTransportOptions;
  #requests = 0;

  constructor(settings: ResolvedTransportOptions) {
    this.#settings = settings;
  }

  /** Each attempt's time limit when a call sets none, in ms. */
  get timeout(): number {
    return this.#settings.timeout;
  }

  /** Retries after the first attempt when a call sets none. */
  get maxRetries(): number {
    return this.#settings.maxRetries;
  }

  /** The component's leveled logger. */
  get logger(): Logger {
    return this.#settings.logger;
  }

  /** The component's hooks: every request, answer, retry and end is told to them. */
  get hooks(): Hooks<TransportEvents> {
    return this.#settings.hooks;
  }

  /** Sends `request`, retrying as configured, and reads the body. Throws an {@link IdGovError}. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    checkCallOptions(request);
    const settings = this.#settings;
    const { logger, hooks } = settings;
    const timeout = request.timeout ?? settings.timeout;
    const maxRetries = request.maxRetries ?? settings.maxRetries;
    const what = summary(request.url, request.method);
    this.#requests += 1;
    const identity: RequestIdentity = {
      requestNumber: this.#requests,
      method: request.method,
      url: what.url ?? '',
      path: what.path,
      ...(request.eventId === undefined ? {} : { eventId: request.eventId }),
    };
    const callHooks = request.hooks;
    const attempts = new AttemptRecorder({
      identity,
      report: request.onAttempt,
      hooks,
      callHooks,
      maxAttempts: maxRetries + 1,
      idempotent: request.idempotent ?? request.method === 'GET',
      signal: request.signal,
    });
    let count = 0;
    // An attempt counts once it is sent: one whose token could not be had is not.
    const prepare = async (headers: Headers) => {
      await request.beforeAttempt?.(headers, count + 1);
      count += 1;
      attempts.begin();
    };
    const onRetry = (plan: RetryPlan, retry: number) => {
      const reason = plan.status === undefined ? plan.reason : `status ${plan.status}`;
      logger.info(`retrying ${what.method} ${what.path} after ${reason}`, {
        retry,
        waitMs: Math.round(plan.delayMs),
      });
      hooks.emit(
        'retry',
        () => ({ ...identity, attempt: retry, maxAttempts: maxRetries + 1, ...plan }),
        callHooks,
      );
    };
    const started = performance.now();
    const end = (outcome: { status?: number | undefined; error?: IdGovError }) =>
      hooks.emit(
        'requestEnd',
        () => ({
          ...identity,
          attempts: count,
          durationMs: performance.now() - started,
          ...outcome,
          requestId: outcome.error ? outcome.error.requestId : attempts.requestId,
        }),
        callHooks,
      );
    try {
      const response = await instance(request.url, {
        method: request.method,
        headers: headersFor(request, settings.userAgent),
        signal: request.signal,
        timeout,
        fetch: fetchWhole({
          fetch: settings.fetch,
          request,
          limit: settings.maxResponseBytes,
          what,
          attempts,
        }),
        // Never follow: a 307/308 would replay the client secret or the token to wherever it points,
        // and any redirect would make us accept answers from a host the user did not configure.
        redirect: 'manual',
        throwHttpErrors: (status) => !request.acceptStatuses?.includes(status),
        retry: retryOptions(maxRetries, onRetry, request.signal),
        hooks: {
          beforeRequest: [({ request: r }) => prepare(r.headers)],
          beforeRetry: [({ request: r }) => prepare(r.headers)],
        },
      });
      const { text, protoFree } = takeDecodedBody(response);
      logger.debug(`${what.method} ${what.path} ${response.status}`, {
        ms: Math.round(performance.now() - started),
        attempts: count,
      });
      attempts.end();
      end({ status: response.status });
      return {
        status: response.status,
        headers: response.headers,
        text,
        protoFree,
        attempts: count,
        requestId: attempts.requestId,
        bytes: attempts.bytes,
        durationMs: performance.now() - started,
      };
    } catch (thrown) {
      attempts.end();
      const error = translate(thrown, request, what, count, timeout);
      end({ status: error instanceof APIError ? error.status : undefined, error });
      throw error;
    }
  }
}

/** Builds a component's transport from its options, refusing bad ones (see {@link resolveTransportOptions}). */
export function createTransport(
  options: TransportOptions,
  defaults: { readonly maxRetries: number; readonly userAgent: string },
): HttpTransport {
  return new HttpTransport(resolveTransportOptions(options, defaults));
}
