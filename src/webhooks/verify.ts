import type { JSONWebKeySet } from 'jose';
import { inCidr } from './cidr.ts';
import { isEventId } from './event-id.ts';
import type { EventIdStore } from './event-store.ts';
import { bodyHash, hmacVerify, importHmacKey } from './hmac.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  LISTENER_PATH,
  MAX_JWT_LIFETIME_SECONDS,
  TIMESTAMP_TOLERANCE_SECONDS,
  WebhookHeader,
} from './limits.ts';

/**
 * An inbound webhook request as the listener sees it.
 *
 * @group Webhooks
 */
export interface InboundWebhookRequest {
  /** HTTP method. */
  readonly method: string;
  /** The full request URL (the JWT `aud` must equal it). */
  readonly url: string;
  /** Request headers. */
  readonly headers: Headers | Record<string, string | undefined>;
  /** The raw body, exactly as received: text or bytes. */
  readonly body: string | Uint8Array<ArrayBuffer>;
  /** The source address, for the CIDR allow list. */
  readonly remoteAddress?: string | undefined;
}

/**
 * How the listener is configured. Give `hmacSecret` or `jwks`, as the listener's authentication method.
 *
 * @group Webhooks
 */
export interface VerifyWebhookOptions {
  /** The HMAC signing secret (HMAC listeners). */
  readonly hmacSecret?: string | undefined;
  /** The JWKS document, or its URL (JWT listeners). */
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
  /** 200 accepted, 400 invalid, 401 unauthenticated, 403 address refused, 409 duplicate. */
  readonly status: 200 | 400 | 401 | 403 | 409;
  /** What decided the status, in words. */
  readonly reason: string;
  /** The event ID, when the request carried a valid one. */
  readonly eventId?: string | undefined;
}

const bad = (status: WebhookVerdict['status'], reason: string, eventId?: string): WebhookVerdict => ({
  status,
  reason,
  eventId,
});

function header(headers: InboundWebhookRequest['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value;
  return undefined;
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
    sub: baseUrl.replace(/\/+$/, ''),
    aud: request.url,
    jti: eventId,
    htm: 'POST',
    htb_s256: await bodyHash(body),
  };
  for (const [claim, value] of Object.entries(expected)) {
    if (claims[claim] === undefined) return `JWT lacks the ${claim} claim`;
    if (claims[claim] !== value) return `JWT ${claim} does not match (expected ${JSON.stringify(value)})`;
  }
  if (typeof claims.exp !== 'number') return 'JWT lacks the exp claim';
  if (claims.exp > nowSeconds + MAX_JWT_LIFETIME_SECONDS) return 'JWT exp is more than 10 minutes ahead';
  return undefined;
}

/**
 * Runs a listener's checks on an inbound webhook request, in the service's order: the request
 * itself (400), authentication (401), the source address (403), then idempotency (409). Returns the
 * status the service would answer and why. HMAC signatures are compared in constant time; JWTs
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
  const nowMs = options.now ?? Date.now();
  const nowSeconds = Math.floor(nowMs / 1000);
  const body =
    typeof request.body === 'string'
      ? new TextEncoder().encode(request.body)
      : (request.body as Uint8Array<ArrayBuffer>);

  // 400: the request itself.
  if (request.method.toUpperCase() !== 'POST') return bad(400, `method must be POST, not ${request.method}`);
  const timestampText = header(request.headers, WebhookHeader.TIMESTAMP);
  const eventId = header(request.headers, WebhookHeader.EVENT_ID);
  const contentType = header(request.headers, WebhookHeader.CONTENT_TYPE);
  if (!timestampText) return bad(400, `missing ${WebhookHeader.TIMESTAMP} header`);
  if (!eventId) return bad(400, `missing ${WebhookHeader.EVENT_ID} header`);
  if (!contentType) return bad(400, `missing ${WebhookHeader.CONTENT_TYPE} header`);
  if (!/^application\/json\b/i.test(contentType))
    return bad(400, `${WebhookHeader.CONTENT_TYPE} must be application/json`);
  if (!/^\d+$/.test(timestampText)) return bad(400, `${WebhookHeader.TIMESTAMP} must be whole Unix seconds`);
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    return bad(400, `${WebhookHeader.TIMESTAMP} is more than 5 minutes from the server's clock`);
  }
  if (!isEventId(eventId)) return bad(400, `${WebhookHeader.EVENT_ID} is not a lower-case UUID v4`);
  if (body.byteLength > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES))
    return bad(400, 'body is over the size limit', eventId);
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return bad(400, 'body is not valid JSON', eventId);
  }

  // 401: authentication, by the listener's method.
  if (options.hmacSecret !== undefined) {
    const signature = header(request.headers, WebhookHeader.SIGNATURE);
    if (!signature) return bad(401, `missing ${WebhookHeader.SIGNATURE} header`, eventId);
    const key = await importHmacKey(options.hmacSecret);
    if (!(await hmacVerify(key, signature, timestampText, eventId, body))) {
      return bad(401, 'HMAC signature mismatch', eventId);
    }
  } else if (options.jwks !== undefined) {
    const token = /^Bearer (\S+)$/i.exec(header(request.headers, WebhookHeader.AUTHORIZATION) ?? '')?.[1];
    if (!token) return bad(401, 'missing Authorization: Bearer header', eventId);
    const failure = await checkJwt(token, options.jwks, request, body, eventId, options.baseUrl, nowSeconds);
    if (failure) return bad(401, failure, eventId);
  } else {
    return bad(401, 'the listener has no authentication configured (pass hmacSecret or jwks)', eventId);
  }

  // 403: the source address.
  if (options.allowedCidrs?.length) {
    const address = request.remoteAddress ?? '';
    if (!options.allowedCidrs.some((cidr) => inCidr(address, cidr))) {
      return bad(403, `source address ${address || '(unknown)'} is not in the allowed CIDRs`, eventId);
    }
  }

  // 409: idempotency, per listener.
  const listener = new URL(request.url).pathname.split(LISTENER_PATH)[1] ?? '';
  if (options.seen && !(await options.seen.claim(`${listener}\n${eventId}`, nowMs))) {
    return bad(409, 'duplicate event ID: already processed', eventId);
  }
  return { status: 200, reason: 'accepted', eventId };
}
