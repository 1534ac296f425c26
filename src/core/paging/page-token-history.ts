/**
 * The page tokens a listing has seen, to stop a service that sends a listing round in a cycle.
 *
 * @module
 */

// Two FNV-1a passes with different offsets: 64 bits of a token in a short string, so the history of
// a listing costs the same whether its tokens are 20 bytes or 256 KiB.
function fingerprint(token: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < token.length; i += 1) {
    const c = token.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return `${token.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

const RECENT_TOKENS = 1024;

/**
 * The page tokens of one listing, in bounded memory: fingerprints of the last 1024 (a cycle up to
 * that period is caught at its first repeated token, before any item is returned twice), plus one
 * checkpoint moved to every power-of-two position (Brent's method), which catches a longer cycle too.
 */
export class TokenHistory {
  readonly #recent = new Set<string>();
  readonly #order: string[] = [];
  #checkpoint: string | undefined;
  #count = 0;

  /** Records `token`; false if it was seen before. */
  add(token: string): boolean {
    const key = fingerprint(token);
    if (this.#recent.has(key) || key === this.#checkpoint) return false;
    this.#count += 1;
    if ((this.#count & (this.#count - 1)) === 0) this.#checkpoint = key;
    this.#recent.add(key);
    this.#order.push(key);
    if (this.#order.length > RECENT_TOKENS) this.#recent.delete(this.#order.shift() as string);
    return true;
  }

  /** Tokens recorded. */
  get size(): number {
    return this.#count;
  }
}
