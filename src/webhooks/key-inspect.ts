import type { JWK } from 'jose';
import { ConfigurationError } from '../core/errors.ts';

/**
 * The JWT algorithms the listener accepts.
 *
 * @group Webhooks
 */
export type JwtAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/**
 * A private key in any form the sender takes: Web Crypto key, JWK, or PKCS#8 PEM text.
 *
 * @group Webhooks
 */
export type PrivateKeyInput = CryptoKey | JWK | string;

const ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

/** Whether `key` is a Web Crypto key (the global may be missing in old runtimes). */
export function isCryptoKey(key: unknown): key is CryptoKey {
  return typeof CryptoKey !== 'undefined' && key instanceof CryptoKey;
}

function fromCryptoKey(key: CryptoKey): JwtAlgorithm | undefined {
  if (key.type !== 'private') {
    throw new ConfigurationError(
      `jwt.privateKey is a ${key.type} key: the sender signs, so it needs the private key.`,
    );
  }
  const algorithm = key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string };
  if (algorithm.name === 'RSASSA-PKCS1-v1_5' && algorithm.hash?.name === 'SHA-256') return 'RS256';
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256') return 'ES256';
  if (algorithm.name === 'Ed25519') return 'EdDSA';
  return undefined;
}

function fromJwk(jwk: JWK): JwtAlgorithm | undefined {
  if (typeof jwk.d !== 'string') {
    throw new ConfigurationError(
      'jwt.privateKey is a public JWK (no "d"): the sender needs the private key.',
    );
  }
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  return undefined;
}

// DER object identifiers in a PKCS#8 PrivateKeyInfo: rsaEncryption, id-ecPublicKey with prime256v1, Ed25519.
const OIDS: ReadonlyArray<[JwtAlgorithm, number[]]> = [
  ['RS256', [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]],
  ['ES256', [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]],
  ['EdDSA', [0x06, 0x03, 0x2b, 0x65, 0x70]],
];

function fromPem(pem: string): JwtAlgorithm | undefined {
  const label = /-----BEGIN ([A-Z ]+)-----/.exec(pem)?.[1];
  if (label === 'ENCRYPTED PRIVATE KEY') {
    throw new ConfigurationError(
      'jwt.privateKey is an encrypted PKCS#8 key: decrypt it first (openssl pkcs8 -in key.pem -out plain.pem).',
    );
  }
  if (label === 'RSA PRIVATE KEY' || label === 'EC PRIVATE KEY') {
    throw new ConfigurationError(
      `jwt.privateKey is a "${label}" PEM; convert it to PKCS#8 ("PRIVATE KEY"): openssl pkcs8 -topk8 -nocrypt -in key.pem -out pkcs8.pem.`,
    );
  }
  if (label !== 'PRIVATE KEY') {
    throw new ConfigurationError(
      'jwt.privateKey must be a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), a JWK or a CryptoKey.',
    );
  }
  let der: Uint8Array;
  try {
    const base64 = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    der = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  } catch {
    throw new ConfigurationError('jwt.privateKey is not valid PEM: its base64 body does not decode.');
  }
  const head = Array.from(der.subarray(0, 40));
  const hit = OIDS.find(([, oid]) => head.some((_, i) => oid.every((byte, j) => head[i + j] === byte)));
  return hit?.[0];
}

/**
 * Works out the algorithm of a private key without importing it, so that a key that does not
 * fit `alg` is reported when the sender is created. Supports RSA (RS256), P-256 (ES256), Ed25519 (EdDSA).
 *
 * @group Webhooks
 */
export function inferAlgorithm(key: PrivateKeyInput, alg: JwtAlgorithm | undefined): JwtAlgorithm {
  if (alg !== undefined && !ALGORITHMS.includes(alg)) {
    throw new ConfigurationError(`jwt.alg must be one of ${ALGORITHMS.join(', ')} (got ${String(alg)}).`);
  }
  const inferred = isCryptoKey(key)
    ? fromCryptoKey(key)
    : typeof key === 'string'
      ? fromPem(key)
      : key && typeof key === 'object'
        ? fromJwk(key)
        : undefined;
  if (!inferred) {
    throw new ConfigurationError(
      'jwt.privateKey is not an RSA, P-256 or Ed25519 private key: the listener accepts only RS256, ES256 and EdDSA.',
    );
  }
  if (alg !== undefined && alg !== inferred) {
    throw new ConfigurationError(
      `jwt.alg is ${alg} but the private key is a ${inferred} key: drop alg or use a matching key.`,
    );
  }
  const jwkAlg = !isCryptoKey(key) && typeof key === 'object' ? key.alg : undefined;
  if (jwkAlg !== undefined && jwkAlg !== inferred) {
    throw new ConfigurationError(`jwt.privateKey says alg "${jwkAlg}" but is a ${inferred} key.`);
  }
  return inferred;
}
