import type { ErrorContext } from '../errors/status-errors.ts';
import type { TransportEvents } from '../events.ts';
import type { HookHandlers } from '../hooks.ts';
import type { AttemptReport } from './attempt-report.ts';
import type { CallOptions } from './transport-options.ts';

/** One request through `HttpTransport.send`. The body is serialised once and re-sent as is on retries. */
export interface HttpRequest extends CallOptions {
  /** `GET` or `POST`. */
  readonly method: 'GET' | 'POST';
  /** Absolute URL. */
  readonly url: string;
  /** The SDK's headers for this request (a content type); they replace a caller's of the same name. */
  readonly headers?: Record<string, string> | undefined;
  /** The caller's extra headers (`RequestOptions.headers`). */
  readonly callerHeaders?: Record<string, string> | undefined;
  /** Serialised body: these exact bytes are sent on every attempt. */
  readonly body?: string | URLSearchParams | Uint8Array<ArrayBuffer> | undefined;
  /** Called before every attempt, to set fresh headers (a token, a signature). */
  readonly beforeAttempt?: ((headers: Headers, attempt: number) => void | Promise<void>) | undefined;
  /** Told of every attempt as it ends: its status or why it got none, and how long it took. */
  readonly onAttempt?: ((report: AttemptReport) => void) | undefined;
  /** The call's own hooks, told after the component's. */
  readonly hooks?: HookHandlers<TransportEvents> | undefined;
  /** Whether sending it twice is harmless; default: for GET. Told to the `request` hook. */
  readonly idempotent?: boolean | undefined;
  /** The webhook event ID of a delivery, which its events name. */
  readonly eventId?: string | undefined;
  /** Non-2xx statuses that are answers, not errors (a webhook's 409 "already delivered"). */
  readonly acceptStatuses?: readonly number[] | undefined;
  /**
   * The caller judges the answer by its status alone (a webhook delivery): the body of an accepted
   * answer is not read, so a large or broken one cannot turn an accepted delivery into a failure.
   */
  readonly statusOnly?: boolean | undefined;
  /** How to word errors of this endpoint. */
  readonly errorContext?: ErrorContext | undefined;
}

/** A 2xx (or accepted) answer, its body read as text (empty with `statusOnly`). */
export interface HttpResponse {
  /** HTTP status. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The body as text. */
  readonly text: string;
  /**
   * True when the reader found, as it decoded, that the text has neither `_proto` nor a `\u`
   * escape: it spells no `__proto__` key, and the parser need not look for one.
   */
  readonly protoFree?: boolean | undefined;
  /** Attempts made, 1 when the first one succeeded. */
  readonly attempts: number;
  /** The service's request ID of the answer, when it sent one. */
  readonly requestId: string | undefined;
  /** Bytes of the body read (0 with `statusOnly`). */
  readonly bytes: number;
  /** From the first attempt to the last byte, retries and waits included, in ms. */
  readonly durationMs: number;
}
