/**
 * Signing, delivering and verifying inbound webhook calls (HMAC or JWT).
 *
 * @module @idgov/sdk/webhooks
 */

// jose's key types, so that typing a key needs no import from jose.
export type { CryptoKey, JSONWebKeySet, JWK } from 'jose';
export type {
  RequestEndEvent,
  RequestEvent,
  RequestIdentity,
  ResponseEvent,
  RetryEvent,
  TransportEvents,
} from '../core/events.ts';
export type { HookHandlers, Hooks } from '../core/hooks.ts';
export { isEventId, newEventId } from './event-id.ts';
export { type EventIdStore, MemoryEventIdStore } from './event-store.ts';
export type { InboundWebhookRequest } from './inbound-request.ts';
export type { JwtAlgorithm, PrivateKeyInput } from './key-inspect.ts';
export { exportWebhookPrivateKey, generateWebhookKeyPair, type WebhookKeyPair } from './key-pair.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  MAX_JWT_LIFETIME_SECONDS,
  TIMESTAMP_TOLERANCE_SECONDS,
  WebhookHeader,
} from './limits.ts';
export { WebhookSender } from './sender.ts';
export type {
  SendOptions,
  SignedWebhook,
  SignOptions,
  WebhookAttempt,
  WebhookDelivery,
  WebhookSenderCommonOptions,
  WebhookSenderOptions,
} from './sender-options.ts';
export type { HmacAuth, JwtAuth } from './signers.ts';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookVerdict,
} from './verify.ts';
