/**
 * Finding a `__proto__` key in JSON text. JSON.parse makes one an own property, which an
 * `Object.assign` or a `for...in` copy would turn into a prototype; bodies that may hold one are
 * parsed with a reviver that drops such keys at every depth (validation.ts).
 *
 * @module
 */

// Every spelling of the key, plain or with `\u` escapes, contains `_proto` or `\u`. Both start with a
// character rare in JSON text, which V8 finds with memchr: far faster than searching for `proto`.
const HINTS = ['_proto', '\\u'] as const;
/** Characters a hint can reach into the next piece of a text split in pieces. */
const HINT_OVERLAP = 5;

/** Whether `text` contains `_proto` or `\u`: without either, no `__proto__` key is spelt in it. */
export function mayNameProto(text: string): boolean {
  return text.includes(HINTS[0]) || text.includes(HINTS[1]);
}

/**
 * {@link mayNameProto} over a text that arrives in pieces (decoded chunks of a body), each piece
 * scanned as it arrives rather than the whole text again once it is in; a hint split across pieces
 * is found too.
 */
export class ProtoHintScan {
  #tail = '';
  #found = false;

  /** Scans the next piece. */
  add(piece: string): void {
    if (this.#found || piece === '') return;
    this.#found = mayNameProto(this.#tail + piece.slice(0, HINT_OVERLAP)) || mayNameProto(piece);
    // The text's last characters, which may span several short pieces (a piece of a long one only:
    // slicing a joined long string would copy it).
    this.#tail = (piece.length >= HINT_OVERLAP ? piece : this.#tail + piece).slice(-HINT_OVERLAP);
  }

  /** Whether any piece so far may spell a `__proto__` key. */
  get found(): boolean {
    return this.#found;
  }
}

const PLAIN_PROTO_KEY = /"__proto__"\s*:/;
const ESCAPED_PROTO_KEY =
  /"(?:_|\\u005[fF]){2}(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[fF])(?:t|\\u0074)(?:o|\\u006[fF])(?:_|\\u005[fF]){2}"\s*:/;

/** Whether `raw` has a `__proto__` key, written plainly or with `\u` escapes. */
export function namesProto(raw: string): boolean {
  return (
    (raw.includes(HINTS[0]) && PLAIN_PROTO_KEY.test(raw)) ||
    (raw.includes(HINTS[1]) && ESCAPED_PROTO_KEY.test(raw))
  );
}

/** A JSON.parse reviver that drops `__proto__` keys. */
export const dropProto = (key: string, value: unknown): unknown => (key === '__proto__' ? undefined : value);
