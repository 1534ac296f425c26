import type * as z from 'zod/mini';
import { setVariant, variantKeysOf } from '../../schemas/wire.ts';

/**
 * Tells whether a value parsed by `JSON.parse` matches a response schema, without copying it: the
 * value itself becomes the result. Accepts exactly what the schema accepts; the only write is the
 * `$kind` discriminator of "exactly one variant" objects, which the schema's own parse adds too.
 */
export type InPlaceCheck = (value: unknown) => boolean;

// Why not zod's parse: it builds a new object for every object of a page, free-form ones included
// (`data`, annotations, `expanded`), and that copy was most of the client's paging cost. A loose
// object here is checked on its known fields only; everything else is kept because nothing is copied.
// zod stays the reference: a value that fails this check is parsed by zod for the exact error.

class Unsupported extends Error {}

const isString: InPlaceCheck = (v) => typeof v === 'string';
const isNumber: InPlaceCheck = (v) => typeof v === 'number' && Number.isFinite(v);
const isBoolean: InPlaceCheck = (v) => typeof v === 'boolean';

/** Missing or null, or else `check`; the common scalar cases in one closure each. */
function nullish(check: InPlaceCheck): InPlaceCheck {
  if (check === isString) return (v) => v == null || typeof v === 'string';
  if (check === isNumber) return (v) => v == null || (typeof v === 'number' && Number.isFinite(v));
  if (check === isBoolean) return (v) => v == null || typeof v === 'boolean';
  return (v) => v == null || check(v);
}

const anything: InPlaceCheck = () => true;
const present: InPlaceCheck = (v) => v !== undefined;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

type Def = {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly innerType?: z.core.$ZodType;
  readonly element?: z.core.$ZodType;
  readonly keyType?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
  readonly shape?: Record<string, z.core.$ZodType>;
  readonly catchall?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
};

function build(schema: z.core.$ZodType): InPlaceCheck {
  const def = schema._zod.def as Def;
  // Refinements (`.check(...)`) are zod's to run; a schema with one takes zod's path.
  if (def.checks?.length) throw new Unsupported(def.type);
  switch (def.type) {
    case 'string':
      return isString;
    case 'number':
      return isNumber;
    case 'boolean':
      return isBoolean;
    case 'unknown':
    case 'any':
      return anything;
    case 'optional':
    case 'nullable': {
      // Most response fields are `nullish(string)` and the like: one closure for "missing, null, or",
      // instead of three calling each other, for the checks that run for every field of a page.
      const inner = def.innerType as z.core.$ZodType;
      const innerDef = inner._zod.def as Def;
      const nested = innerDef.type === (def.type === 'optional' ? 'nullable' : 'optional');
      const check = build(nested ? (innerDef.innerType as z.core.$ZodType) : inner);
      if (check === anything) return anything;
      if (nested) return nullish(check);
      return def.type === 'optional' ? (v) => v === undefined || check(v) : (v) => v === null || check(v);
    }
    case 'array': {
      const element = build(def.element as z.core.$ZodType);
      if (element === anything) return Array.isArray;
      return (v) => Array.isArray(v) && v.every(element);
    }
    case 'record': {
      if ((def.keyType?._zod.def as Def | undefined)?.type !== 'string') throw new Unsupported('record key');
      const value = build(def.valueType as z.core.$ZodType);
      if (value === anything) return isObject;
      return (v) => {
        if (!isObject(v)) return false;
        for (const key in v) if (!value(v[key])) return false;
        return true;
      };
    }
    case 'object': {
      // Only loose objects (unknown fields kept); strict ones are request schemas, never checked here.
      if ((def.catchall?._zod.def as Def | undefined)?.type !== 'unknown') throw new Unsupported('object');
      const shape = def.shape ?? {};
      const keys = Object.keys(shape);
      const checks = keys.map((key) => {
        const field = shape[key] as z.core.$ZodType;
        const check = build(field);
        // zod requires the key of a non-optional `unknown` field to be present.
        return check === anything && field._zod.optin !== 'optional' ? present : check;
      });
      return (v) => {
        if (!isObject(v)) return false;
        for (let i = 0; i < keys.length; i++) {
          if (!(checks[i] as InPlaceCheck)(v[keys[i] as string])) return false;
        }
        return true;
      };
    }
    case 'pipe': {
      const variants = variantKeysOf(schema);
      if (!variants) throw new Unsupported('pipe');
      const object = build(def.in as z.core.$ZodType);
      return (v) => {
        if (!object(v)) return false;
        setVariant(v as Record<string, unknown>, variants);
        return true;
      };
    }
    default:
      throw new Unsupported(def.type);
  }
}

const built = new WeakMap<z.core.$ZodType, InPlaceCheck | null>();

/**
 * The in-place check of a response schema, built once per schema; `undefined` when the schema uses
 * something only zod can run (a refinement, a transform), so the caller parses with zod instead.
 */
export function inPlaceCheck(schema: z.core.$ZodType): InPlaceCheck | undefined {
  let check = built.get(schema);
  if (check === undefined) {
    try {
      check = build(schema);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      check = null;
    }
    built.set(schema, check);
  }
  return check ?? undefined;
}
