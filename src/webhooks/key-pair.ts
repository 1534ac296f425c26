import type { JSONWebKeySet, JWK } from 'jose';
import type { JwtAlgorithm } from './key-inspect.ts';

/**
 * A signing key pair for a JWT listener, with the JWKS document to host.
 *
 * @group Webhooks
 */
export interface WebhookKeyPair {
  /** The private key: keep it in the partner system; pass it as `jwt.privateKey`. */
  readonly privateKey: CryptoKey;
  /** The public key as a JWK with `kty`, `use`, `kid`, `alg` and its parameters. */
  readonly publicJwk: JWK;
  /** `{ keys: [publicJwk] }`: serve it at the HTTPS JWKS URL configured on the listener. */
  readonly jwks: JSONWebKeySet;
  /** The key ID, also in `publicJwk.kid`; pass it as `jwt.kid`. */
  readonly kid: string;
  /** The algorithm. */
  readonly alg: JwtAlgorithm;
}

/**
 * Generates a key pair for a JWT listener and the public JWKS document an administrator hosts.
 * `kid` defaults to the key's RFC 7638 thumbprint. The private key is extractable so it can be stored.
 *
 * @example
 * const pair = await generateWebhookKeyPair('ES256');
 * await writeFile('jwks.json', JSON.stringify(pair.jwks));
 * const sender = new WebhookSender({ url, jwt: { privateKey: pair.privateKey, kid: pair.kid } });
 *
 * @group Webhooks
 */
export async function generateWebhookKeyPair(
  alg: JwtAlgorithm = 'ES256',
  options: { kid?: string } = {},
): Promise<WebhookKeyPair> {
  // Loaded here, not at the top: a static jose import would put jose in every webhooks bundle.
  const { calculateJwkThumbprint, exportJWK, generateKeyPair } = await import('jose');
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const exported = await exportJWK(publicKey);
  const kid = options.kid ?? (await calculateJwkThumbprint(exported));
  const publicJwk: JWK = { ...exported, kid, use: 'sig', alg };
  return { privateKey, publicJwk, jwks: { keys: [publicJwk] }, kid, alg };
}
