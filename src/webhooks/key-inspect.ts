import type { CryptoKey, JWK } from 'jose';
import { ConfigurationError } from '../core/errors/errors.ts';
import { isBinary } from '../internal/values.ts';

/**
 * The JWT algorithms the listener accepts.
 *
 * @group Webhooks
 */
export type JwtAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/**
 * A private key in any form the sender takes: Web Crypto key, JWK, or PKCS#8 PEM text. `CryptoKey`
 * is jose's: the runtime's own where the project's libraries declare one (DOM, `@types/node`), a
 * structural type otherwise, so a wrong key is a compile error with any `lib` setting.
 *
 * @group Webhooks
 */
export type PrivateKeyInput = CryptoKey | JWK | string;

const ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

/** Whether `key` is a Web Crypto key (the global may be missing in old runtimes). */
export function isCryptoKey(key: unknown): key is CryptoKey {
  return typeof globalThis.CryptoKey !== 'undefined' && key instanceof globalThis.CryptoKey;
}

/** RS256 needs a modulus of at least 2048 bits (RFC 7518, 3.3); the listener refuses smaller keys. */
const MIN_RSA_BITS = 2048;

function tooSmall(bits: number): never {
  throw new ConfigurationError(
    `jwt.privateKey is a ${bits}-bit RSA key: RS256 needs at least ${MIN_RSA_BITS} bits; make a new key (generateWebhookKeyPair('RS256')).`,
  );
}

/** Bits of an unsigned big-endian integer, leading zero bytes ignored. */
function bitLength(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i] as number));
}

/**
 * The bytes of a base64url parameter without padding, or undefined if it is not one. `atob`, not
 * jose's base64url: this runs in every sender's constructor, and jose stays out of HMAC bundles.
 */
function base64urlBytes(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value) || value.length % 4 === 1)
    return undefined;
  const binary = atob(value.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Checks a private JWK's parameters: present, base64url, of the right size. Never quotes them. */
function checkJwkParameters(jwk: JWK, alg: JwtAlgorithm): void {
  const malformed = (name: string, want: string): never => {
    throw new ConfigurationError(
      `jwt.privateKey (${alg} JWK) has a missing or malformed "${name}": expected ${want}. Export the key again.`,
    );
  };
  const bytes = (name: string) => base64urlBytes((jwk as Record<string, unknown>)[name]);
  if (alg === 'RS256') {
    const n = bytes('n') ?? malformed('n', 'the modulus as base64url');
    if (!bytes('e')) malformed('e', 'the public exponent as base64url');
    if (!bytes('d')) malformed('d', 'the private exponent as base64url');
    const crt = ['p', 'q', 'dp', 'dq', 'qi'] as const;
    if (crt.some((name) => jwk[name] !== undefined)) {
      for (const name of crt) if (!bytes(name)) malformed(name, 'base64url (all CRT parameters, or none)');
    }
    const bits = bitLength(n);
    if (bits < MIN_RSA_BITS) tooSmall(bits);
    return;
  }
  // P-256 and Ed25519 keys: every coordinate and private scalar is 32 bytes.
  const names = alg === 'ES256' ? ['x', 'y', 'd'] : ['x', 'd'];
  for (const name of names) if (bytes(name)?.length !== 32) malformed(name, '32 bytes of base64url');
}

/** One DER element: its tag and where its content lies. */
function derElement(der: Uint8Array, at: number): { tag: number; start: number; end: number } | undefined {
  const tag = der[at];
  let length = der[at + 1];
  if (tag === undefined || length === undefined) return undefined;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 4) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0);
    start += count;
  }
  return start + length <= der.length ? { tag, start, end: start + length } : undefined;
}

/** The modulus size of a PKCS#8 RSA key: PrivateKeyInfo { version, algorithm, OCTET STRING { RSAPrivateKey { version, modulus, ... } } }. */
function rsaModulusBits(der: Uint8Array): number | undefined {
  const info = derElement(der, 0);
  const version = info && derElement(der, info.start);
  const algorithm = version && derElement(der, version.end);
  const octets = algorithm && derElement(der, algorithm.end);
  const rsaKey = octets?.tag === 0x04 ? derElement(der, octets.start) : undefined;
  const rsaVersion = rsaKey && derElement(der, rsaKey.start);
  const modulus = rsaVersion && derElement(der, rsaVersion.end);
  return modulus?.tag === 0x02 ? bitLength(der.subarray(modulus.start, modulus.end)) : undefined;
}

function fromCryptoKey(key: CryptoKey): JwtAlgorithm | undefined {
  if (key.type !== 'private') {
    throw new ConfigurationError(
      `jwt.privateKey is a ${key.type} key: the sender signs, so it needs the private key.`,
    );
  }
  const algorithm = key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string };
  if (algorithm.name === 'RSASSA-PKCS1-v1_5' && algorithm.hash?.name === 'SHA-256') {
    const bits = (algorithm as { modulusLength?: number }).modulusLength ?? MIN_RSA_BITS;
    if (bits < MIN_RSA_BITS) tooSmall(bits);
    return 'RS256';
  }
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256') return 'ES256';
  if (algorithm.name === 'Ed25519') return 'EdDSA';
  return undefined;
}

function fromJwk(jwk: JWK): JwtAlgorithm | undefined {
  if (isBinary(jwk)) {
    throw new ConfigurationError(
      "jwt.privateKey is binary (a Buffer?): pass the PEM as text (readFileSync(path, 'utf8')), a JWK or a CryptoKey.",
    );
  }
  if (Array.isArray((jwk as { keys?: unknown }).keys)) {
    throw new ConfigurationError(
      'jwt.privateKey is a JWK Set ({ keys: [...] }): pass the one private JWK of it that signs, and its kid.',
    );
  }
  if (jwk.kty === 'oct') {
    throw new ConfigurationError(
      'jwt.privateKey is a symmetric key (kty "oct", HS256): JWT listeners take RS256, ES256 or EdDSA keys; a shared secret is for hmac: { secret }.',
    );
  }
  if (typeof jwk.d !== 'string') {
    throw new ConfigurationError(
      'jwt.privateKey is a public JWK (no "d"): the sender needs the private key.',
    );
  }
  const alg =
    jwk.kty === 'RSA'
      ? 'RS256'
      : jwk.kty === 'EC' && jwk.crv === 'P-256'
        ? 'ES256'
        : jwk.kty === 'OKP' && jwk.crv === 'Ed25519'
          ? 'EdDSA'
          : undefined;
  if (alg) checkJwkParameters(jwk, alg);
  return alg;
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
      `jwt.privateKey is a PEM of type "${label}"; convert it to PKCS#8 ("PRIVATE KEY"): openssl pkcs8 -topk8 -nocrypt -in key.pem -out pkcs8.pem.`,
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
  if (hit?.[0] === 'RS256') {
    const bits = rsaModulusBits(der);
    if (bits === undefined) throw new ConfigurationError('jwt.privateKey is a malformed PKCS#8 RSA key.');
    if (bits < MIN_RSA_BITS) tooSmall(bits);
  }
  return hit?.[0];
}

/**
 * Works out the algorithm of a private key without importing it, so that a key that does not
 * fit `alg` is reported when the sender is created. Supports RSA (RS256, at least 2048 bits), P-256
 * (ES256), Ed25519 (EdDSA); a JWK's parameters are checked for presence and size. What only an
 * import can tell (a point off the curve) is checked before the first request, by the signer.
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
      `jwt.alg is ${alg} but the private key is an ${inferred} key: drop alg or use a matching key.`,
    );
  }
  const jwkAlg = !isCryptoKey(key) && typeof key === 'object' ? key.alg : undefined;
  if (jwkAlg !== undefined && jwkAlg !== inferred) {
    throw new ConfigurationError(`jwt.privateKey says alg "${jwkAlg}" but is an ${inferred} key.`);
  }
  return inferred;
}
