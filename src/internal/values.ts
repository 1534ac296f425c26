/**
 * A caller's value as a message may name it, and what kind of value it is.
 *
 * @module
 */

/** The kind of `value` for a message, never its content (it may be a secret): `null`, `an array`, `a string`... */
export function kindName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (isBinary(value)) return 'binary data';
  const type = typeof value;
  return `${type === 'object' ? 'an' : 'a'} ${type}`;
}

/** A value as a message names it: its kind, and a short JSON of a primitive; never an object's content. */
export function describeValue(value: unknown): string {
  if (value == null || typeof value === 'object' || typeof value === 'function') return kindName(value);
  return `${typeof value} ${String(JSON.stringify(value) ?? String(value)).slice(0, 40)}`;
}

/** Whether `value` is bytes (a Buffer, a Uint8Array, an ArrayBuffer): text read without its encoding, often. */
export function isBinary(value: unknown): value is Uint8Array | ArrayBuffer {
  // By tag as well: bytes of another realm (a vm context, a worker's) are not instances of these.
  return (
    ArrayBuffer.isView(value) ||
    /^\[object (ArrayBuffer|SharedArrayBuffer)\]$/.test(Object.prototype.toString.call(value))
  );
}
