/**
 * Signing, delivering and verifying inbound webhook calls (HMAC or JWT).
 *
 * @module @idgov/sdk/webhooks
 */

// jose's key types, so that typing a key needs no import from jose.
export type { CryptoKey, JSONWebKeySet, JWK } from 'jose';
export type { WebhookAttempt } from './attempts.ts';
export { isEventId, newEventId } from './event-id.ts';
export { type EventIdStore, MemoryEventIdStore } from './event-store.ts';
export type { JwtAlgorithm, PrivateKeyInput } from './key-inspect.ts';
export { exportWebhookPrivateKey, generateWebhookKeyPair, type WebhookKeyPair } from './key-pair.ts';
export {
  DEFAULT_MAX_BODY_BYTES,
  MAX_JWT_LIFETIME_SECONDS,
  TIMESTAMP_TOLERANCE_SECONDS,
  WebhookHeader,
} from './limits.ts';
export {
  type SendOptions,
  type SignedWebhook,
  type SignOptions,
  type WebhookDelivery,
  WebhookSender,
  type WebhookSenderCommonOptions,
  type WebhookSenderOptions,
} from './sender.ts';
export type { HmacAuth, JwtAuth } from './signers.ts';
export {
  type InboundWebhookRequest,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookVerdict,
} from './verify.ts';
