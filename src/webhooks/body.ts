import { RequestValidationError } from '../core/errors.ts';

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

/**
 * Refuses what `JSON.stringify` would silently change or drop: functions, symbols, BigInt,
 * non-finite numbers, `undefined` in arrays or at the top, Maps and Sets (they become `{}`), cycles,
 * a `toJSON()` that returns `undefined`, and nesting deeper than {@link MAX_DEPTH}. An `undefined`
 * object property is allowed and left out, as JSON does. `toJSON()` results are checked like values.
 */
function assertSerialisable(value: unknown, path: string, ancestors: object[], key = ''): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value))
        fail(path, `is ${value}: JSON has no such number (it would be sent as null).`);
      return;
    case 'bigint':
      fail(path, 'is a BigInt: JSON cannot carry it; send it as a string.');
      break;
    case 'function':
    case 'symbol':
      fail(path, `is a ${typeof value}: JSON cannot carry it.`);
      break;
    case 'undefined':
      fail(path, 'is undefined: JSON has no undefined (in an array it would become null).');
  }
  if (value === null) return;
  const object = value as object;
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // Date and friends: what JSON.stringify will send is what toJSON returns, so check that.
    const replaced: unknown = toJSON.call(object, key);
    if (replaced === undefined) fail(path, 'has a toJSON() that returns undefined: nothing would be sent.');
    if (replaced !== object) assertSerialisable(replaced, path, ancestors, key);
    return;
  }
  if (object instanceof Map || object instanceof Set) fail(path, 'is a Map or Set: it would be sent as {}.');
  if (ancestors.includes(object)) fail(path, 'refers back to itself (a cycle): JSON cannot carry it.');
  if (ancestors.length >= MAX_DEPTH) {
    fail(path.slice(0, 60), `is nested more than ${MAX_DEPTH} levels deep: flatten the payload.`);
  }
  ancestors.push(object);
  if (Array.isArray(object)) {
    object.forEach((item, i) => {
      assertSerialisable(item, `${path}[${i}]`, ancestors, String(i));
    });
  } else {
    for (const [name, item] of Object.entries(object)) {
      if (item !== undefined) assertSerialisable(item, `${path}.${name}`, ancestors, name);
    }
  }
  ancestors.pop();
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
    assertSerialisable(payload, '', []);
    text = JSON.stringify(payload);
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
