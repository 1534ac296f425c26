/**
 * The runtime's synchronous crypto, where it has one. Web Crypto is asynchronous: in Node each
 * call is a round trip to a worker thread that costs far more than an HMAC of a webhook body. Node,
 * Bun and Deno expose `node:crypto` through `process.getBuiltinModule` (a run-time lookup, not an
 * import, so bundles and browsers are unaffected); elsewhere this is null and Web Crypto is used.
 *
 * @module
 */

/** A `node:crypto` Hmac or Hash. */
interface Updatable {
  update(data: Uint8Array | string): Updatable;
  digest(encoding: 'base64url'): string;
}

/**
 * The two functions of `node:crypto` the SDK uses.
 *
 * @group Webhooks
 */
export interface NativeCrypto {
  createHmac(algorithm: 'sha256', key: string): Updatable;
  createHash(algorithm: 'sha256'): Updatable;
}

let cached: NativeCrypto | null | undefined;

/**
 * `node:crypto` where the runtime offers it synchronously, else null.
 *
 * @group Webhooks
 */
export function nativeCrypto(): NativeCrypto | null {
  if (cached === undefined) {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    try {
      cached = (process?.getBuiltinModule?.('node:crypto') as NativeCrypto | undefined) ?? null;
    } catch {
      cached = null;
    }
  }
  return cached;
}
