/**
 * Everything that needs jose's JWT code. Loaded with a dynamic `import()` on first use, so that
 * bundles using only HMAC never contain it.
 *
 * @internal
 * @module
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  importJWK,
  importPKCS8,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { isCryptoKey, type JwtAlgorithm, type PrivateKeyInput } from './key-inspect.ts';

/**
 * Imports a private key for signing with `alg`.
 *
 * @group Webhooks
 */
export async function importPrivateKey(key: PrivateKeyInput, alg: JwtAlgorithm): Promise<CryptoKey> {
  if (typeof key === 'string') return importPKCS8(key, alg);
  if (isCryptoKey(key)) return key;
  return (await importJWK(key as Parameters<typeof importJWK>[0], alg)) as CryptoKey;
}

/**
 * Signs `claims` with the `kid` header.
 *
 * @group Webhooks
 */
export function signJwt(key: CryptoKey, alg: JwtAlgorithm, kid: string, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid, typ: 'JWT' }).sign(key);
}

/**
 * Where the verifier finds the listener's public keys: a JWKS document, or its URL.
 *
 * @group Webhooks
 */
export type JwksSource = JSONWebKeySet | URL;

/**
 * Verifies a JWT's signature against `jwks` (RS256, ES256 and EdDSA only) and returns its claims.
 * Claim checks are the caller's, so each failure can be named. Throws on any signature problem.
 *
 * @group Webhooks
 */
export async function verifyJwtSignature(
  token: string,
  jwks: JwksSource,
  nowSeconds: number,
): Promise<JWTPayload> {
  const keys = jwks instanceof URL ? createRemoteJWKSet(jwks) : createLocalJWKSet(jwks);
  const { payload } = await jwtVerify(token, keys, {
    algorithms: ['RS256', 'ES256', 'EdDSA'],
    currentDate: new Date(nowSeconds * 1000),
  });
  return payload;
}
