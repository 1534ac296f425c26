/**
 * What the SDK tells its hooks: typed events of each request, retry, token and page. No event
 * ever holds a secret (a token, a signature, a key) or a body.
 *
 * @module
 */
import type { IdGovError } from './errors/errors.ts';

/**
 * What every event of one request says of it.
 *
 * @group Observability
 */
export interface RequestIdentity {
  /** The same in every event of one request, and different from the component's other requests. */
  readonly requestNumber: number;
  /** The request's method. */
  readonly method: 'GET' | 'POST';
  /** The URL's origin and path, without the query (which may hold filters). */
  readonly url: string;
  /** The URL's path. */
  readonly path: string;
  /** The webhook event ID, for a delivery. */
  readonly eventId?: string | undefined;
}

/**
 * An attempt of a request is about to be sent (its headers set, a token or signature included).
 *
 * @group Observability
 */
export interface RequestEvent extends RequestIdentity {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Attempts allowed: `maxRetries` + 1. */
  readonly maxAttempts: number;
  /** Whether sending it twice is harmless (a read, or a delivery the listener deduplicates by event ID). */
  readonly idempotent: boolean;
}

/**
 * An answer arrived for an attempt, its body read (or, for a delivery, its status alone).
 *
 * @group Observability
 */
export interface ResponseEvent extends RequestIdentity {
  /** Which attempt it answered. */
  readonly attempt: number;
  /** The HTTP status. */
  readonly status: number;
  /** The service's request ID (`x-request-id` or `request-id`), to quote to its support. */
  readonly requestId: string | undefined;
  /** From sending to the last byte read, in ms. */
  readonly durationMs: number;
  /** Bytes of body read. */
  readonly bytes: number;
}

/**
 * A retry is scheduled: why, after how long, and which attempt comes next.
 *
 * @group Observability
 */
export interface RetryEvent extends RequestIdentity {
  /** The attempt that failed. */
  readonly attempt: number;
  /** Attempts allowed: `maxRetries` + 1. */
  readonly maxAttempts: number;
  /** `status` (408, 429 or 5xx), `timeout` (the attempt's time ran out) or `network` (the connection failed or broke). */
  readonly reason: 'status' | 'timeout' | 'network';
  /** The status that is retried, for `reason: 'status'`. */
  readonly status?: number | undefined;
  /** How long the SDK waits before the next attempt, in ms: the service's Retry-After, or the backoff. */
  readonly delayMs: number;
}

/**
 * A request is over: answered, or failed after its last attempt.
 *
 * @group Observability
 */
export interface RequestEndEvent extends RequestIdentity {
  /** Attempts sent: 0 when the first could not be (its token could not be had). */
  readonly attempts: number;
  /** From the first attempt to the end, retries and waits included, in ms. */
  readonly durationMs: number;
  /** The last answer's status, when there was one. */
  readonly status?: number | undefined;
  /** The last answer's request ID, when the service sent one. */
  readonly requestId?: string | undefined;
  /** The error the call rejects with, when it failed (an `IdGovError`: it holds no secret). */
  readonly error?: IdGovError | undefined;
}

/**
 * The events every component that sends requests (a client, a webhook sender) tells its hooks.
 *
 * @group Observability
 */
export interface TransportEvents {
  /** An attempt is about to be sent. */
  readonly request: RequestEvent;
  /** An answer arrived for an attempt. */
  readonly response: ResponseEvent;
  /** A retry is scheduled. */
  readonly retry: RetryEvent;
  /** A request is over. */
  readonly requestEnd: RequestEndEvent;
}

/**
 * An access token was fetched from the token endpoint. Never the token itself.
 *
 * @group Observability
 */
export interface TokenEvent {
  /** `first` (none was cached), `expiring` (the cached one neared its expiry) or `refused` (the API answered 401 to it). */
  readonly reason: 'first' | 'expiring' | 'refused';
  /** The new token's lifetime, as the endpoint said (`expires_in`). */
  readonly expiresInSeconds: number | undefined;
  /** How long getting it took, in ms. */
  readonly durationMs: number;
}

/**
 * A page of a listing was read and checked: progress through a search.
 *
 * @group Observability
 */
export interface PageEvent {
  /** What is listed, e.g. `task search`. */
  readonly what: string;
  /** 1 for the first page this listing read. */
  readonly page: number;
  /** Results on this page. */
  readonly items: number;
  /** Results on every page read so far, this one included. */
  readonly itemsSoFar: number;
  /** Bytes of this page's body. */
  readonly bytes: number;
  /** Whether another page follows. */
  readonly more: boolean;
  /** The service's request ID of this page. */
  readonly requestId: string | undefined;
  /** How long the page's request took, in ms. */
  readonly durationMs: number;
}

/**
 * The events an `IdGovClient` tells its hooks.
 *
 * @group Observability
 */
export interface ClientEvents extends TransportEvents {
  /** An access token was fetched. */
  readonly token: TokenEvent;
  /** A page was read. */
  readonly page: PageEvent;
}
