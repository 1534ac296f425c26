import { withoutTrailingSlash } from '../internal/url.ts';
import { bodyHash } from './hmac.ts';

/**
 * The claims that bind a listener JWT to one request: the tenant (`sub`), the listener URL
 * (`aud`), the event (`jti`, the `Webhook-Event-Id` as sent), the method (`htm`) and the body's
 * SHA-256 (`htb_s256`). The sender signs exactly these and the verifier expects exactly these:
 * both build them here, so the two cannot drift apart.
 */
export interface BoundClaims {
  readonly sub: string;
  readonly aud: string;
  readonly jti: string;
  readonly htm: 'POST';
  readonly htb_s256: string;
}

/** {@link BoundClaims} of a request of `eventId` with `body` to the listener at `url` under `baseUrl`. */
export async function boundClaims(request: {
  readonly baseUrl: string;
  readonly url: string;
  readonly eventId: string;
  readonly body: Uint8Array<ArrayBuffer>;
}): Promise<BoundClaims> {
  return {
    // The listener removes trailing slashes from its base URL before comparing.
    sub: withoutTrailingSlash(request.baseUrl),
    aud: request.url,
    jti: request.eventId,
    htm: 'POST',
    htb_s256: await bodyHash(request.body),
  };
}
