import type { JSONWebKeySet } from 'jose';
import { ConfigurationError } from '../core/errors/errors.ts';
import { boundClaims } from './bound-claims.ts';
import { checkCidrs, inCidr } from './cidr.ts';
import { isUuidV4 } from './event-id.ts';
import type { EventIdStore } from './event-store.ts';
import { hmacVerify, importHmacKey, secretTypeProblem } from './hmac.ts';
import {
  audiences,
  header,
  type InboundWebhookRequest,
  isJsonContentType,
  listenerIdOf,
} from './inbound-request.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  MAX_JWT_LIFETIME_SECONDS,
  TIMESTAMP_TOLERANCE_SECONDS,
  WebhookHeader,
} from './limits.ts';

/**
 * How the listener is configured. Give exactly one of `hmacSecret` or `jwks`, as the listener's
 * authentication method; anything else (both, neither, an empty secret) throws a `ConfigurationError`.
 *
 * @group Webhooks
 */
export interface VerifyWebhookOptions {
  /** The HMAC signing secret (HMAC listeners). */
  readonly hmacSecret?: string | undefined;
  /**
   * The JWKS document, or its URL (JWT listeners). A URL's key set is built once per URL and reused
   * by later calls, so its keys are fetched once and refetched only for an unknown `kid`.
   */
  readonly jwks?: JSONWebKeySet | URL | undefined;
  /** The tenant base URL: the JWT `sub` must equal it. */
  readonly baseUrl: string;
  /** Allowed source CIDRs; when set, other addresses get 403. */
  readonly allowedCidrs?: readonly string[] | undefined;
  /** Where accepted event IDs are remembered; without one, duplicates are not detected. */
  readonly seen?: EventIdStore | undefined;
  /** The current time in ms. Default: `Date.now()`. */
  readonly now?: number | undefined;
  /** Largest body in bytes. Default 65,536. */
  readonly maxBodyBytes?: number | undefined;
}

/**
 * The listener's answer: the status the service would send, and why.
 *
 * @group Webhooks
 */
export interface WebhookVerdict {
  /**
   * 200 accepted, 400 invalid, 401 unauthenticated, 403 address refused, 405 not a POST (a listener
   * URL serves POST only), 409 duplicate.
   */
  readonly status: 200 | 400 | 401 | 403 | 405 | 409;
  /** What decided the status, in words. */
  readonly reason: string;
  /** The event ID in lower case, when the request carried a valid one (in either case). */
  readonly eventId?: string | undefined;
}

const bad = (status: WebhookVerdict['status'], reason: string, eventId?: string): WebhookVerdict => ({
  status,
  reason,
  eventId,
});

// HMAC-SHA256 is 32 bytes: 43 characters of base64url without padding. Anything else (padding,
// spaces, standard base64) is refused before decoding, since decoders are lenient about all three.
// The 43rd character carries 4 bits and 2 unused ones, which decoders ignore: only the canonical
// character (unused bits zero, as every encoder writes) is accepted, so one signature has one
// spelling, as for a service that compares the encoded strings.
const HMAC_SIGNATURE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** Refuses a listener configuration that could never verify anything, before any request is judged. */
function checkOptions(options: VerifyWebhookOptions): void {
  const { hmacSecret, jwks } = options;
  checkCidrs(options.allowedCidrs, 'allowedCidrs');
  if (hmacSecret !== undefined && jwks !== undefined) {
    throw new ConfigurationError('Pass hmacSecret or jwks, not both: a listener uses one method.');
  }
  if (hmacSecret !== undefined) {
    const wrongType = secretTypeProblem('hmacSecret', hmacSecret);
    if (wrongType) throw new ConfigurationError(wrongType);
    if (hmacSecret === '') {
      throw new ConfigurationError("hmacSecret is empty: pass the listener's signing secret.");
    }
    return;
  }
  if (jwks === undefined) {
    throw new ConfigurationError(
      'Pass hmacSecret (an HMAC listener) or jwks (a JWT listener): the listener has no authentication.',
    );
  }
  if (!(jwks instanceof URL) && !Array.isArray((jwks as { keys?: unknown } | null)?.keys)) {
    throw new ConfigurationError('jwks must be a JWKS document ({ keys: [...] }) or a URL object.');
  }
}

async function checkJwt(
  token: string,
  jwks: JSONWebKeySet | URL,
  request: InboundWebhookRequest,
  body: Uint8Array<ArrayBuffer>,
  eventId: string,
  baseUrl: string,
  nowSeconds: number,
): Promise<string | undefined> {
  const { verifyJwtSignature } = await import('./jwt.ts');
  let claims: Awaited<ReturnType<typeof verifyJwtSignature>>;
  try {
    claims = await verifyJwtSignature(token, jwks, nowSeconds);
  } catch (error) {
    return `JWT verification failed: ${(error as Error).message}`;
  }
  const expected: Record<string, unknown> = {
    ...(await boundClaims({ baseUrl, url: request.url, eventId, body })),
  };
  const accepted = audiences(request.url);
  for (const [claim, value] of Object.entries(expected)) {
    const actual = claims[claim];
    if (actual === undefined) return `JWT lacks the ${claim} claim`;
    // aud may be an array of audiences that contains the listener URL (RFC 7519 4.1.3). jti must
    // equal the event ID header exactly as sent: the service compares the two strings, not UUIDs.
    const matches =
      claim === 'aud'
        ? (Array.isArray(actual) ? actual : [actual]).some((audience) => accepted.includes(audience))
        : actual === value;
    if (!matches) return `JWT ${claim} does not match (expected ${JSON.stringify(value)})`;
  }
  if (typeof claims.exp !== 'number') return 'JWT lacks the exp claim';
  if (claims.exp > nowSeconds + MAX_JWT_LIFETIME_SECONDS) return 'JWT exp is more than 10 minutes ahead';
  return undefined;
}

/**
 * Runs a listener's checks on an inbound webhook request, in the service's order: the method
 * (405), the request itself (400), authentication (401), the source address (403), then idempotency (409). Returns the
 * status the service would answer and why; the rules are listed in the signing-webhooks guide.
 * A configuration that could never verify (an empty secret, both methods, neither) throws a
 * `ConfigurationError` instead. HMAC signatures are compared in constant time; JWTs
 * are accepted only with RS256, ES256 or EdDSA and every claim the listener requires (`sub`, `aud`, `exp`, `jti`, `htm`, `htb_s256`).
 *
 * For partners' own tests, and used by the testing kit's fake tenant.
 *
 * @example
 * const verdict = await verifyWebhook(
 *   { method: 'POST', url, headers: signed.headers, body: signed.body },
 *   { hmacSecret: secret, baseUrl },
 * );
 * expect(verdict.status).toBe(200);
 *
 * @group Webhooks
 */
export async function verifyWebhook(
  request: InboundWebhookRequest,
  options: VerifyWebhookOptions,
): Promise<WebhookVerdict> {
  checkOptions(options);
  const nowMs = options.now ?? Date.now();
  const nowSeconds = Math.floor(nowMs / 1000);
  const body =
    typeof request.body === 'string'
      ? new TextEncoder().encode(request.body)
      : (request.body as Uint8Array<ArrayBuffer>);

  // 405: a listener URL is routed for POST only; methods are case-sensitive (`post` is another one).
  if (request.method !== 'POST') return bad(405, `method must be POST, not ${request.method.slice(0, 20)}`);
  // 400: the request itself.
  const timestampText = header(request.headers, WebhookHeader.TIMESTAMP);
  const eventIdText = header(request.headers, WebhookHeader.EVENT_ID);
  const contentType = header(request.headers, WebhookHeader.CONTENT_TYPE);
  if (!timestampText) return bad(400, `missing ${WebhookHeader.TIMESTAMP} header`);
  if (!eventIdText) return bad(400, `missing ${WebhookHeader.EVENT_ID} header`);
  if (!contentType) return bad(400, `missing ${WebhookHeader.CONTENT_TYPE} header`);
  if (!isJsonContentType(contentType))
    return bad(
      400,
      `${WebhookHeader.CONTENT_TYPE} must be application/json (got ${contentType.slice(0, 100)})`,
    );
  // The canonical integer only: a leading zero (`01767225600`) is another text signed for the same time.
  if (!/^[1-9]\d*$/.test(timestampText)) {
    return bad(400, `${WebhookHeader.TIMESTAMP} must be whole Unix seconds, without leading zeros`);
  }
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    return bad(
      400,
      `${WebhookHeader.TIMESTAMP} is more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from the server's clock`,
    );
  }
  if (!isUuidV4(eventIdText)) return bad(400, `${WebhookHeader.EVENT_ID} is not a UUID v4`);
  // One event whatever its case for idempotency; the signed inputs (HMAC, jti) use the header as sent.
  const eventId = eventIdText.toLowerCase();
  if (body.byteLength > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES))
    return bad(400, 'body is over the size limit', eventId);
  try {
    // ignoreBOM keeps a byte-order mark in the text, where JSON.parse refuses it: the body as sent is not JSON.
    JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body));
  } catch {
    return bad(400, 'body is not valid JSON', eventId);
  }

  // 401: authentication, by the listener's method.
  if (options.hmacSecret !== undefined) {
    const signature = header(request.headers, WebhookHeader.SIGNATURE);
    if (!signature) return bad(401, `missing ${WebhookHeader.SIGNATURE} header`, eventId);
    if (!HMAC_SIGNATURE.test(signature)) {
      return bad(
        401,
        `${WebhookHeader.SIGNATURE} is not 43 characters of canonical base64url without padding`,
        eventId,
      );
    }
    const key = await importHmacKey(options.hmacSecret);
    // The signed input holds the event ID as sent, not its lower-case form.
    if (!(await hmacVerify(key, signature, timestampText, eventIdText, body))) {
      return bad(401, 'HMAC signature mismatch', eventId);
    }
  } else {
    const token = /^Bearer (\S+)$/i.exec(header(request.headers, WebhookHeader.AUTHORIZATION) ?? '')?.[1];
    if (!token) return bad(401, 'missing Authorization: Bearer header', eventId);
    const jwks = options.jwks as JSONWebKeySet | URL; // checkOptions: one of the two is set
    const failure = await checkJwt(token, jwks, request, body, eventIdText, options.baseUrl, nowSeconds);
    if (failure) return bad(401, failure, eventId);
  }

  // 403: the source address.
  if (options.allowedCidrs?.length) {
    const address = request.remoteAddress ?? '';
    if (!options.allowedCidrs.some((cidr) => inCidr(address, cidr))) {
      return bad(403, `source address ${address || '(unknown)'} is not in the allowed CIDRs`, eventId);
    }
  }

  // 409: idempotency, per listener (its decoded ID) and event ID (lower case).
  if (options.seen && !(await options.seen.claim(`${listenerIdOf(request.url)}\n${eventId}`, nowMs))) {
    return bad(409, 'duplicate event ID: already processed', eventId);
  }
  return { status: 200, reason: 'accepted', eventId };
}
