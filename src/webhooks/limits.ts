/** The listener's limits and header names. */

/**
 * The service's "64 KB", read as 65,536 bytes of UTF-8; configurable because a service may apply 64,000.
 *
 * @group Webhooks
 */
export const DEFAULT_MAX_BODY_BYTES = 65_536;
/**
 * How far `Webhook-Timestamp` may be from the server's clock.
 *
 * @group Webhooks
 */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/**
 * The furthest a JWT `exp` may be in the future.
 *
 * @group Webhooks
 */
export const MAX_JWT_LIFETIME_SECONDS = 600;
/**
 * What the sender uses unless told otherwise (expiry must be at most 10 minutes ahead; 5 leaves room for clock skew).
 *
 * @group Webhooks
 */
export const DEFAULT_JWT_LIFETIME_SECONDS = 300;
/**
 * The longest JWT lifetime the sender signs. A listener refuses an `exp` more than 600 s past its own
 * clock, so a token of 600 s fails at a listener 1 s behind; 540 leaves it a minute.
 */
export const MAX_SENDER_JWT_LIFETIME_SECONDS = 540;
/**
 * How long the listener remembers an event ID.
 *
 * @group Webhooks
 */
export const EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * The path of a listener under the tenant base URL.
 *
 * @group Webhooks
 */
export const LISTENER_PATH = '/api/v1/webhooks/incoming/';

/**
 * Header names, as the service writes them.
 *
 * @group Webhooks
 */
export const WebhookHeader = Object.freeze({
  TIMESTAMP: 'Webhook-Timestamp',
  EVENT_ID: 'Webhook-Event-Id',
  SIGNATURE: 'Webhook-Signature',
  AUTHORIZATION: 'Authorization',
  CONTENT_TYPE: 'Content-Type',
} as const);
