import { ConfigurationError } from '../core/errors.ts';
import { bodyHash, hmacSignature } from './hmac.ts';
import { inferAlgorithm, type JwtAlgorithm, type PrivateKeyInput } from './key-inspect.ts';
import { DEFAULT_JWT_LIFETIME_SECONDS, MAX_JWT_LIFETIME_SECONDS, WebhookHeader } from './limits.ts';

/**
 * Produces the authentication headers of one attempt.
 *
 * @group Webhooks
 */
export interface Signer {
  /** `hmac` or `jwt (ES256, kid ...)`, for inspection; never key material. */
  readonly description: string;
  /** Headers that authenticate `body` for this event and timestamp. */
  sign(body: Uint8Array<ArrayBuffer>, eventId: string, timestamp: number): Promise<Record<string, string>>;
}

/**
 * HMAC listener authentication.
 *
 * @group Webhooks
 */
export interface HmacAuth {
  /** The signing secret exactly as the service gave it (a base64url string; it is not decoded). */
  readonly secret: string;
}

/**
 * JWT listener authentication.
 *
 * @group Webhooks
 */
export interface JwtAuth {
  /** The private key: a Web Crypto `CryptoKey`, a private JWK, or PKCS#8 PEM text. */
  readonly privateKey: PrivateKeyInput;
  /** The key ID, as in the JWKS the listener fetches. */
  readonly kid: string;
  /** RS256, ES256 or EdDSA; inferred from the key when omitted, and checked against it. */
  readonly alg?: JwtAlgorithm | undefined;
  /** The `sub` claim. Default: the tenant base URL of the listener URL. */
  readonly subject?: string | undefined;
  /** Seconds until `exp`: 1 to 600, default 300. */
  readonly expiresIn?: number | undefined;
}

/**
 * Checks the HMAC secret and returns a signer that imports the key once.
 *
 * @group Webhooks
 */
export function hmacSigner(auth: HmacAuth): Signer {
  const { secret } = auth;
  if (typeof secret !== 'string' || secret === '') {
    throw new ConfigurationError(
      'hmac.secret is empty: pass the signing secret shown when the listener was saved.',
    );
  }
  if (secret !== secret.trim()) {
    throw new ConfigurationError(
      'hmac.secret has surrounding whitespace (a copy-paste slip?): trim it; the secret is used byte for byte.',
    );
  }
  const key = { secret };
  return {
    description: 'hmac',
    async sign(body, eventId, timestamp) {
      return { [WebhookHeader.SIGNATURE]: await hmacSignature(key, String(timestamp), eventId, body) };
    },
  };
}

/**
 * Checks the JWT settings at once (key type, alg, kid, lifetime); jose is loaded on the first signature.
 *
 * @group Webhooks
 */
export function jwtSigner(auth: JwtAuth, audience: string, defaultSubject: string): Signer {
  const alg = inferAlgorithm(auth.privateKey, auth.alg);
  if (typeof auth.kid !== 'string' || auth.kid.trim() === '') {
    throw new ConfigurationError('jwt.kid is empty: the listener looks the key up in its JWKS by kid.');
  }
  const lifetime = auth.expiresIn ?? DEFAULT_JWT_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_JWT_LIFETIME_SECONDS) {
    throw new ConfigurationError(
      `jwt.expiresIn must be a whole number of seconds from 1 to ${MAX_JWT_LIFETIME_SECONDS} (got ${lifetime}): the listener refuses an exp further out.`,
    );
  }
  const subject = auth.subject ?? defaultSubject;
  let ready: Promise<{ jwt: typeof import('./jwt.ts'); key: CryptoKey }> | undefined;
  return {
    description: `jwt (${alg}, kid ${auth.kid})`,
    async sign(body, eventId, timestamp) {
      ready ??= import('./jwt.ts').then(async (jwt) => ({
        jwt,
        key: await jwt.importPrivateKey(auth.privateKey, alg),
      }));
      const { jwt, key } = await ready;
      const token = await jwt.signJwt(key, alg, auth.kid, {
        sub: subject,
        aud: audience,
        iat: timestamp,
        exp: timestamp + lifetime,
        jti: eventId,
        htm: 'POST',
        htb_s256: await bodyHash(body),
      });
      return { [WebhookHeader.AUTHORIZATION]: `Bearer ${token}` };
    },
  };
}
