import * as base64url from 'jose/base64url';

const encoder = new TextEncoder();

/** The listener's signature input: `<timestamp>.<event_id>.<body>` (SPEC.md 5.1), as bytes. */
export function signatureInput(
  timestamp: string,
  eventId: string,
  body: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.${eventId}.`);
  const input = new Uint8Array(prefix.byteLength + body.byteLength);
  input.set(prefix);
  input.set(body, prefix.byteLength);
  return input;
}

/**
 * Imports the HMAC-SHA256 key. The key is the secret string's own UTF-8 bytes: it is *not*
 * base64url-decoded, though it looks like base64url (SPEC.md 5.1, step 3).
 */
export function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/** The `Webhook-Signature` value: HMAC-SHA256 of the signature input, base64url without padding. */
export async function hmacSignature(key: CryptoKey, timestamp: string, eventId: string, body: Uint8Array) {
  const mac = await crypto.subtle.sign('HMAC', key, signatureInput(timestamp, eventId, body));
  return base64url.encode(new Uint8Array(mac));
}

/** Checks a `Webhook-Signature` in constant time (Web Crypto's HMAC verify). */
export async function hmacVerify(
  key: CryptoKey,
  signature: string,
  timestamp: string,
  eventId: string,
  body: Uint8Array,
): Promise<boolean> {
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = base64url.decode(signature) as Uint8Array<ArrayBuffer>;
  } catch {
    return false;
  }
  return crypto.subtle.verify('HMAC', key, mac, signatureInput(timestamp, eventId, body));
}

/** `htb_s256`: SHA-256 of the exact body bytes, base64url without padding (SPEC.md 5.2). */
export async function bodyHash(body: Uint8Array<ArrayBuffer>): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', body)));
}

/** A new HMAC secret for tests: 256 random bits, base64url, the form the service hands out. */
export function createHmacSecret(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}
