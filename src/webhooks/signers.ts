import type { CryptoKey } from 'jose';
import { ConfigurationError } from '../core/errors/errors.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { kindName } from '../internal/values.ts';
import { boundClaims } from './bound-claims.ts';
import { hmacSignature, secretTypeProblem } from './hmac.ts';
import { inferAlgorithm, type JwtAlgorithm, type PrivateKeyInput } from './key-inspect.ts';
import { DEFAULT_JWT_LIFETIME_SECONDS, MAX_SENDER_JWT_LIFETIME_SECONDS, WebhookHeader } from './limits.ts';

/**
 * Produces the authentication headers of one attempt.
 *
 * @group Webhooks
 */
export interface Signer {
  /** The listener's authentication method. */
  readonly kind: 'hmac' | 'jwt';
  /** `hmac` or `jwt (ES256, kid ...)`, for inspection; never key material. */
  readonly description: string;
  /** Prepares the key (imports it once); a key that cannot be used throws a `ConfigurationError`. */
  ready(): Promise<void>;
  /** Headers that authenticate `body` for this event and timestamp. */
  sign(body: Uint8Array<ArrayBuffer>, eventId: string, timestamp: number): Promise<Record<string, string>>;
  /** Key material an error must never quote, should a listener echo it (the HMAC secret). */
  secrets(): readonly string[];
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
  /**
   * The `sub` claim. Default: the tenant base URL of the listener URL. Trailing slashes are removed,
   * as the listener removes them from its base URL before comparing.
   */
  readonly subject?: string | undefined;
  /**
   * Seconds until `exp`: 1 to 540, default 300. The listener allows at most 600 s past its own clock;
   * the last minute is left for its clock to be behind this machine's.
   */
  readonly expiresIn?: number | undefined;
}

/**
 * Checks the HMAC secret and returns a signer that imports the key once.
 *
 * @group Webhooks
 */
export function hmacSigner(auth: HmacAuth): Signer {
  if (typeof auth !== 'object' || auth === null) {
    throw new ConfigurationError(`hmac must be an object { secret } (got ${kindName(auth)}).`);
  }
  const { secret } = auth;
  const wrongType = secretTypeProblem('hmac.secret', secret);
  if (wrongType) throw new ConfigurationError(wrongType);
  if (secret === '') {
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
    kind: 'hmac',
    description: 'hmac',
    async ready() {},
    secrets: () => [secret],
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
  if (auth.kid !== auth.kid.trim()) {
    throw new ConfigurationError(
      'jwt.kid has surrounding whitespace (a copy-paste slip?): trim it; the listener matches the kid exactly.',
    );
  }
  const lifetime = auth.expiresIn ?? DEFAULT_JWT_LIFETIME_SECONDS;
  if (wholeNumberProblem(lifetime, 1, MAX_SENDER_JWT_LIFETIME_SECONDS)) {
    throw new ConfigurationError(
      `jwt.expiresIn must be a whole number of seconds from 1 to ${MAX_SENDER_JWT_LIFETIME_SECONDS} (got ${lifetime}): the listener refuses an exp more than 600 s past its clock, and its clock may be behind.`,
    );
  }
  const subject = auth.subject ?? defaultSubject;
  let loaded: Promise<{ jwt: typeof import('./jwt.ts'); key: CryptoKey }> | undefined;
  const load = () => {
    loaded ??= import('./jwt.ts').then(async (jwt) => {
      try {
        return { jwt, key: await jwt.importPrivateKey(auth.privateKey, alg) };
      } catch (error) {
        // The import's own message names the problem, never the key; the key is not quoted here either.
        throw new ConfigurationError(
          `jwt.privateKey cannot be used as an ${alg} key: ${(error as Error).message}. Export the key again.`,
          { cause: error },
        );
      }
    });
    return loaded;
  };
  return {
    kind: 'jwt',
    description: `jwt (${alg}, kid ${auth.kid})`,
    // The private key never enters a header; the signed tokens are redacted per attempt.
    secrets: () => [],
    async ready() {
      await load();
    },
    async sign(body, eventId, timestamp) {
      const { jwt, key } = await load();
      const token = await jwt.signJwt(key, alg, auth.kid, {
        ...(await boundClaims({ baseUrl: subject, url: audience, eventId, body })),
        iat: timestamp,
        exp: timestamp + lifetime,
      });
      return { [WebhookHeader.AUTHORIZATION]: `Bearer ${token}` };
    },
  };
}
