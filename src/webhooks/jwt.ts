/**
 * Everything that needs jose's JWT code. Loaded with a dynamic `import()` on first use, so that
 * bundles using only HMAC never contain it.
 *
 * @internal
 * @module
 */
import {
  type CryptoKey,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
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

// One remote key set per JWKS URL, kept across calls: it caches the fetched keys (and refetches on
// an unknown kid after a cooldown), which a set built per call would throw away. Bounded, oldest out.
const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
const MAX_REMOTE_SETS = 64;

function remoteSet(url: URL): ReturnType<typeof createRemoteJWKSet> {
  let set = remoteSets.get(url.href);
  if (!set) {
    set = createRemoteJWKSet(url);
    if (remoteSets.size >= MAX_REMOTE_SETS) remoteSets.delete(remoteSets.keys().next().value ?? '');
    remoteSets.set(url.href, set);
  }
  return set;
}

/**
 * Verifies a JWT's signature against `jwks` (RS256, ES256 and EdDSA only) and returns its claims.
 * The header must carry a `kid` naming a key of the set: a set holding one key of the right type is
 * not enough. `jku`, `x5u` and other key-locating headers are ignored (never fetched); unknown `crit`
 * extensions are refused. Claim checks are the caller's, so each failure can be named. Throws on any
 * signature problem.
 *
 * @group Webhooks
 */
export async function verifyJwtSignature(
  token: string,
  jwks: JwksSource,
  nowSeconds: number,
): Promise<JWTPayload> {
  const { kid } = decodeProtectedHeader(token);
  if (typeof kid !== 'string' || kid === '') throw new Error('the JWT header has no kid');
  const keys = jwks instanceof URL ? remoteSet(jwks) : createLocalJWKSet(jwks);
  const { payload } = await jwtVerify(token, keys, {
    algorithms: ['RS256', 'ES256', 'EdDSA'],
    currentDate: new Date(nowSeconds * 1000),
  });
  return payload;
}
