import { RequestValidationError } from '../core/errors/errors.ts';
import { isBinary } from '../internal/values.ts';

/**
 * A webhook body serialised once: the text and its exact UTF-8 bytes, which are both signed and sent.
 *
 * @group Webhooks
 */
export interface SerializedBody {
  /** The JSON text. */
  readonly text: string;
  /** Its UTF-8 bytes (no BOM). */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

function fail(path: string, problem: string): never {
  throw new RequestValidationError(`payload${path} ${problem}`, `payload${path}`);
}

/**
 * The deepest nesting of arrays and objects a payload may have. Deeper payloads overflow the stack
 * of recursive JSON code (ours, `JSON.stringify`, many listeners' parsers), so they are refused with
 * a clear error instead of a `RangeError`; 1,000 is Python's default recursion limit.
 */
const MAX_DEPTH = 1_000;

// The wrappers JSON.stringify unwraps (with a valueOf or toString it looks up, which a caller may
// have replaced): unwrapped here with the prototype's own method, so the value checked is the value sent.
const BOXES: ReadonlyArray<() => unknown> = [Number, String, Boolean, BigInt, Symbol].map(
  (box) => box.prototype.valueOf,
);

function unbox(value: object): unknown {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === Array.prototype || prototype === null) {
    if (/^\[object (Object|Array)\]$/.test(Object.prototype.toString.call(value))) return value;
  }
  for (const primitiveOf of BOXES) {
    try {
      return primitiveOf.call(value);
    } catch {
      // not this kind of box
    }
  }
  return value;
}

/** `value`'s kind with its article, for a message: `a RegExp`, `an Error`, `a Report` (its class). */
function kindOf(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  const name = tag === 'Object' ? String(value.constructor?.name || 'object') : tag;
  return `${/^[AEIO]/i.test(name) ? 'an' : 'a'} ${name}`; // a URLSearchParams, a Uint8Array
}

/**
 * Why `value`, an object that is not plain data, would not be sent as what it holds; undefined for
 * a plain object or array (of any realm), and for an instance of a class of the caller's (sent as
 * its fields, as JSON does, even none). A forgotten `await` is the common case: a Promise is sent
 * as `{}`; so are the runtime's own objects that keep their data out of sight (an Error, Headers).
 */
function notData(value: object): string | undefined {
  if (value instanceof Map || value instanceof Set) return 'is a Map or Set: it would be sent as {}.';
  const prototype: object | null = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null || Array.isArray(value)) return undefined;
  if (typeof (value as { then?: unknown }).then === 'function')
    return `is ${kindOf(value)} (a thenable): it would be sent as {}. Await it first (a forgotten await?).`;
  if (isBinary(value))
    return `is ${kindOf(value)}: it would be sent as an object of its bytes by index, or as {}; send base64 text or an array of numbers.`;
  // A class's instance, or a plain object of another realm (a vm context, jsdom): its fields.
  if (Object.prototype.toString.call(value) === '[object Object]') return undefined;
  if (Object.keys(value).length === 0)
    return `is ${kindOf(value)}, which has no field JSON sees: it would be sent as {}. Send its data as a plain object.`;
  return undefined;
}

/** Whether `holder[key]`, as stored (not through a getter), is a Date whose time is NaN: its toJSON() gives null. */
function invalidDate(holder: object, key: string): boolean {
  const stored: unknown = Object.getOwnPropertyDescriptor(holder, key)?.value;
  return stored instanceof Date && Number.isNaN(stored.getTime());
}

/**
 * Serialises with one `JSON.stringify`, refusing on the way what it would silently change or drop:
 * functions, symbols, BigInt, non-finite numbers, `undefined` in arrays (a hole, or a `toJSON()`
 * returning it) or at the top, objects it would send as `{}` or as another shape (a Promise, an
 * Error, a Map, a typed array: {@link notData}), an invalid Date (sent as null), cycles, and nesting
 * deeper than {@link MAX_DEPTH}. An `undefined` object property is left out, as JSON does.
 *
 * The replacer sees each value after `toJSON()`, exactly what is written, so every getter and
 * `toJSON()` runs once and what is checked is what is sent. `this` is the holder of the value: the
 * stack of holders gives the path, the depth and the ancestors (for cycles).
 */
function stringifyChecked(payload: unknown): string {
  const holders: object[] = [];
  const paths: string[] = [];
  function check(this: object, key: string, raw: unknown): unknown {
    if (holders.length === 0) {
      holders.push(this);
      paths.push('');
    }
    while (holders.length > 1 && holders[holders.length - 1] !== this) {
      holders.pop();
      paths.pop();
    }
    const inArray = Array.isArray(this);
    const top = holders.length === 1;
    const parent = paths[paths.length - 1] ?? '';
    const path = top ? '' : inArray ? `${parent}[${key}]` : `${parent}.${key}`;
    const value = typeof raw === 'object' && raw !== null ? unbox(raw) : raw;
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (!Number.isFinite(value))
          fail(path, `is ${value}: JSON has no such number (it would be sent as null).`);
        return value;
      case 'bigint':
        fail(path, 'is a BigInt: JSON cannot carry it; send it as a string.');
        break;
      case 'function':
        // A toJSON() result's own toJSON method is never called, and JSON drops it, as a method.
        if (key === 'toJSON' && !inArray && !top) return undefined;
        fail(path, 'is a function: JSON cannot carry it.');
        break;
      case 'symbol':
        fail(path, 'is a symbol: JSON cannot carry it.');
        break;
      case 'undefined':
        if (top) fail(path, 'is undefined (or its toJSON() returns undefined): nothing would be sent.');
        if (inArray)
          fail(path, 'is undefined (a hole, or a toJSON() returning undefined): it would be sent as null.');
        return undefined; // an object property: left out, as JSON does
    }
    if (value === null) {
      if (invalidDate(this, key))
        fail(path, 'is an invalid Date (its time is NaN): it would be sent as null.');
      return null;
    }
    const problem = notData(value as object);
    if (problem) fail(path, problem);
    if (holders.includes(value as object))
      fail(path, 'refers back to itself (a cycle): JSON cannot carry it.');
    if (holders.length > MAX_DEPTH) {
      fail(path.slice(0, 60), `is nested more than ${MAX_DEPTH} levels deep: flatten the payload.`);
    }
    holders.push(value as object);
    paths.push(path);
    return value;
  }
  let text: unknown;
  try {
    text = JSON.stringify(payload, check);
  } catch (error) {
    if (error instanceof RequestValidationError) throw error;
    // A throwing getter or toJSON(), a Proxy trap, a stack overflow: still a refused payload.
    throw new RequestValidationError(
      `payload cannot be serialised: ${String((error as Error)?.message ?? error).slice(0, 200)}`,
      'payload',
      [],
      { cause: error },
    );
  }
  if (typeof text !== 'string') fail('', 'is undefined: nothing would be sent.');
  return text;
}

/** How deeply a JSON text nests arrays and objects (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Serialises a payload once. A string is taken as already serialised JSON and sent byte for byte
 * (it must parse); anything else must be a JSON value. The result must fit `maxBytes` of UTF-8.
 *
 * @group Webhooks
 */
export function serializeBody(payload: unknown, maxBytes: number): SerializedBody {
  let text: string;
  if (typeof payload === 'string') {
    try {
      JSON.parse(payload);
    } catch {
      throw new RequestValidationError(
        'payload is a string but not valid JSON: pass an object to have it serialised, or a JSON text.',
        'payload',
      );
    }
    // UTF-8 cannot carry a lone surrogate (\p{Cs} in a u-regex matches only unpaired ones): the
    // encoder would send U+FFFD instead, another text than given.
    if (/\p{Cs}/u.test(payload)) {
      throw new RequestValidationError(
        'payload is a string with a lone surrogate (half of a UTF-16 pair): UTF-8 cannot carry it; fix the text, or pass an object to have it escaped.',
        'payload',
      );
    }
    if (nestingDepth(payload) > MAX_DEPTH) {
      fail('', `is nested more than ${MAX_DEPTH} levels deep: flatten the payload.`);
    }
    text = payload;
  } else {
    text = stringifyChecked(payload);
  }
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength > maxBytes) {
    throw new RequestValidationError(
      `payload is ${bytes.byteLength} bytes of UTF-8, over the listener's limit of ${maxBytes}: send less, or split the event.`,
      'payload',
    );
  }
  return { text, bytes };
}
