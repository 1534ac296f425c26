import { isBinary, kindName } from '../internal/values.ts';
import { nativeCrypto } from './native-crypto.ts';

// jose's base64url serves only the Web Crypto paths (signing in browsers, and verifying), so it
// loads with their first use and stays out of every sender's initial chunk.
const base64url = () => import('jose/base64url');

const encoder = new TextEncoder();

/** What the listener signs before the body: `<timestamp>.<event_id>.` */
function signaturePrefix(timestamp: string, eventId: string): string {
  return `${timestamp}.${eventId}.`;
}

/**
 * The listener's signature input: `<timestamp>.<event_id>.<body>`, as bytes.
 *
 * @group Webhooks
 */
export function signatureInput(
  timestamp: string,
  eventId: string,
  body: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(signaturePrefix(timestamp, eventId));
  const input = new Uint8Array(prefix.byteLength + body.byteLength);
  input.set(prefix);
  input.set(body, prefix.byteLength);
  return input;
}

/**
 * Imports the HMAC-SHA256 key. The key is the secret string's own UTF-8 bytes: it is *not*
 * base64url-decoded, though it looks like base64url: the service uses the text as given.
 *
 * @group Webhooks
 */
export function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/**
 * An HMAC-SHA256 key: the secret text, and its Web Crypto key imported on first use where needed.
 *
 * @group Webhooks
 */
export interface HmacKey {
  /** The secret, as given. */
  readonly secret: string;
  /** The Web Crypto key, for runtimes without synchronous crypto. */
  webCryptoKey?: Promise<CryptoKey>;
}

/**
 * The `Webhook-Signature` value: HMAC-SHA256 of the signature input, base64url without padding.
 *
 * @group Webhooks
 */
export async function hmacSignature(
  key: HmacKey,
  timestamp: string,
  eventId: string,
  body: Uint8Array,
  native = nativeCrypto(), // null forces Web Crypto (tests of the browser path)
) {
  if (native) {
    // Fed in two parts rather than copied into one input: the body is the larger part.
    const hmac = native.createHmac('sha256', key.secret).update(signaturePrefix(timestamp, eventId));
    return hmac.update(body).digest('base64url');
  }
  const input = signatureInput(timestamp, eventId, body);
  key.webCryptoKey ??= importHmacKey(key.secret);
  const mac = await crypto.subtle.sign('HMAC', await key.webCryptoKey, input);
  return (await base64url()).encode(new Uint8Array(mac));
}

/**
 * Checks a `Webhook-Signature` in constant time (Web Crypto's HMAC verify).
 *
 * @group Webhooks
 */
export async function hmacVerify(
  key: CryptoKey,
  signature: string,
  timestamp: string,
  eventId: string,
  body: Uint8Array,
): Promise<boolean> {
  const { decode } = await base64url();
  let mac: Uint8Array<ArrayBuffer>;
  try {
    mac = decode(signature) as Uint8Array<ArrayBuffer>;
  } catch {
    return false;
  }
  return crypto.subtle.verify('HMAC', key, mac, signatureInput(timestamp, eventId, body));
}

/** SHA-256, base64url without padding; `native` null forces Web Crypto (tests of the browser path). */
export async function sha256Base64url(
  body: Uint8Array<ArrayBuffer>,
  native = nativeCrypto(),
): Promise<string> {
  if (native) return native.createHash('sha256').update(body).digest('base64url');
  const digest = await crypto.subtle.digest('SHA-256', body);
  return (await base64url()).encode(new Uint8Array(digest));
}

/**
 * `htb_s256`: SHA-256 of the exact body bytes, base64url without padding.
 *
 * @group Webhooks
 */
export function bodyHash(body: Uint8Array<ArrayBuffer>): Promise<string> {
  return sha256Base64url(body);
}

/**
 * Why `secret` given as `name` is not the text of a secret, or undefined when it is a string (empty
 * or not). Never quotes it.
 */
export function secretTypeProblem(name: string, secret: unknown): string | undefined {
  if (typeof secret === 'string') return undefined;
  if (isBinary(secret))
    return `${name} is binary (a Buffer?): pass the secret as the text shown when the listener was saved (for a file, readFileSync(path, 'utf8').trim()).`;
  return `${name} must be a string: the signing secret shown when the listener was saved (got ${kindName(secret)}).`;
}
