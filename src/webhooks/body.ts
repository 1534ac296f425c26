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
 * Refuses what `JSON.stringify` would silently change or drop: functions, symbols, BigInt,
 * non-finite numbers, `undefined` in arrays or at the top, Maps and Sets (they become `{}`), cycles.
 * An `undefined` object property is allowed and left out, as JSON does.
 */
function assertSerialisable(value: unknown, path: string, ancestors: object[]): void {
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
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return; // Date and friends
  if (object instanceof Map || object instanceof Set) fail(path, 'is a Map or Set: it would be sent as {}.');
  if (ancestors.includes(object)) fail(path, 'refers back to itself (a cycle): JSON cannot carry it.');
  ancestors.push(object);
  if (Array.isArray(object)) {
    object.forEach((item, i) => {
      assertSerialisable(item, `${path}[${i}]`, ancestors);
    });
  } else {
    for (const [key, item] of Object.entries(object)) {
      if (item !== undefined) assertSerialisable(item, `${path}.${key}`, ancestors);
    }
  }
  ancestors.pop();
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
