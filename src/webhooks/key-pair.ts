import type { CryptoKey, JSONWebKeySet, JWK } from 'jose';
import { ConfigurationError } from '../core/errors/errors.ts';
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

/**
 * Exports a private key so it can be stored and loaded again: `'pkcs8'` gives PKCS#8 PEM text
 * (`-----BEGIN PRIVATE KEY-----`), `'jwk'` a private JWK. Either form is taken back as
 * `jwt.privateKey`. Both are secrets: keep them where you keep passwords, never in a log.
 * Keys from {@link generateWebhookKeyPair} are extractable; a key that is not is refused with a
 * `ConfigurationError`.
 *
 * @example
 * const pair = await generateWebhookKeyPair('EdDSA');
 * await writeFile('webhook-key.pem', await exportWebhookPrivateKey(pair.privateKey, 'pkcs8'), { mode: 0o600 });
 * const sender = new WebhookSender({ url, jwt: { privateKey: await readFile('webhook-key.pem', 'utf8'), kid: pair.kid } });
 *
 * @group Webhooks
 */
export async function exportWebhookPrivateKey(key: CryptoKey, format: 'pkcs8'): Promise<string>;
export async function exportWebhookPrivateKey(key: CryptoKey, format: 'jwk'): Promise<JWK>;
export async function exportWebhookPrivateKey(
  key: CryptoKey,
  format: 'pkcs8' | 'jwk',
): Promise<string | JWK> {
  if (format !== 'pkcs8' && format !== 'jwk') {
    throw new ConfigurationError(`format must be 'pkcs8' or 'jwk', not ${JSON.stringify(format)}.`);
  }
  if (key?.type !== 'private') {
    throw new ConfigurationError('exportWebhookPrivateKey takes a private CryptoKey (pair.privateKey).');
  }
  if (!key.extractable) {
    throw new ConfigurationError(
      'This private key is not extractable, so it cannot be exported: make it with generateWebhookKeyPair(), or import it with extractable: true.',
    );
  }
  const { exportJWK, exportPKCS8 } = await import('jose');
  return format === 'pkcs8' ? exportPKCS8(key) : exportJWK(key);
}
