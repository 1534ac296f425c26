import * as base64url from 'jose/base64url';

/**
 * A new HMAC listener secret for tests: 256 random bits, base64url, the form the service hands out. Use it with {@link FakeTenant.addListener} and a `WebhookSender`.
 *
 * @group Testing kit
 */
export function createHmacSecret(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}
