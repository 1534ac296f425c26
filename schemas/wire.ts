import * as z from 'zod/mini';

/**
 * Flattens intersections so editors show one object type.
 *
 * @group Wire model
 */
export type Prettify<T> = { [K in keyof T]: T[K] } & {};

/**
 * A response object: unknown fields are kept at run time (the service grows), but the static
 * type lists only the known fields, so a typo such as `task.dispalyName` is a compile error.
 *
 * @group Wire model
 */
export function loose<S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$strip> {
  return z.looseObject(shape) as unknown as z.ZodMiniObject<S, z.core.$strip>;
}

/**
 * A response field: any of them may be missing or `null` on the wire, and is kept as sent.
 *
 * @group Wire model
 */
export const opt = z.nullish;

// One shared instance per common field type: parsing is measurably faster when every string field
// runs the same schema object (monomorphic call sites), and nothing is lost since they are immutable.
/**
 * A string response field, possibly missing or `null`.
 *
 * @group Wire model
 */
export const nullishString = opt(z.string());
/**
 * A response array: missing or `null` as a whole, and any element may be `null` too. One `null`
 * element must not cost the page, so it is kept, and the type says so.
 *
 * @group Wire model
 */
export function list<T extends z.core.SomeType>(item: T) {
  return opt(z.array(z.nullable(item)));
}
/**
 * A string-array response field, possibly missing or `null`, elements possibly `null`.
 *
 * @group Wire model
 */
export const nullishStrings = list(z.string());
/**
 * A boolean response field, possibly missing or `null`.
 *
 * @group Wire model
 */
export const nullishBoolean = opt(z.boolean());
/**
 * A number response field, possibly missing or `null`.
 *
 * @group Wire model
 */
export const nullishNumber = opt(z.number());

/**
 * A string-to-value map of a response; any value may be `null`.
 *
 * @group Wire model
 */
export function map<V extends z.core.SomeType>(value: V) {
  return z.record(z.string(), z.nullable(value));
}

/**
 * The discriminator the SDK adds to every "exactly one variant" object: the name of the variant
 * that is set. Protobuf JSON field names never contain `$`, so the service cannot send a field of
 * this name and none of its fields is ever overwritten.
 *
 * @group Wire model
 */
export const VARIANT = '$kind';

/**
 * One member of a parsed "exactly one variant" union: `$kind` names the variant that is set.
 *
 * @group Wire model
 */
export type VariantMember<B, K extends PropertyKey, V> = Prettify<
  B & { readonly $kind: K } & { [P in K]: V }
>;

/**
 * The parsed shape of an "exactly one variant" object: switch on `$kind` and TypeScript narrows to
 * the variant. A variant this SDK does not know yet parses as `'unknown'` with its data kept.
 *
 * @group Wire model
 */
export type OneOf<B, V extends Record<string, unknown>> =
  | { [K in keyof V]: VariantMember<NoFields<B>, K, V[K]> }[keyof V]
  | Prettify<NoFields<B> & { readonly $kind: 'unknown' }>;

/**
 * An empty base shape: zod types its output as `{ [k: string]: never }`, which would claim that a
 * variant the SDK does not know holds nothing, and make a misspelt filter key read "not assignable
 * to never".
 */
type NoFields<B> = string extends keyof B ? object : B;

const variantKeys = new WeakMap<object, readonly string[]>();

/** @internal The variant names of a schema made by {@link oneOf}, for the in-place check. */
export function variantKeysOf(schema: object): readonly string[] | undefined {
  return variantKeys.get(schema);
}

/**
 * @internal Writes `$kind`: the first variant set, in declaration order (several set is a service
 * bug; the others are still kept), or `'unknown'` for a variant this SDK does not know.
 */
function setVariant(value: Record<string, unknown>, keys: readonly string[]): void {
  let kind = 'unknown';
  for (const key of keys) {
    if (value[key] != null) {
      kind = key;
      break;
    }
  }
  value[VARIANT] = kind;
}

/**
 * Schema of an object with common fields `base` and exactly one of `variants` set; the variant
 * that is set is written to `$kind`.
 *
 * @group Wire model
 */
export function oneOf<B extends z.core.$ZodLooseShape, V extends Record<string, z.core.SomeType>>(
  base: B,
  variants: V,
) {
  const keys = Object.keys(variants);
  const shape: z.core.$ZodLooseShape = { ...base };
  for (const key of keys) shape[key] = opt(variants[key] as z.core.SomeType);
  const schema = z.pipe(
    z.looseObject(shape),
    z.transform((value: Record<string, unknown>) => {
      setVariant(value, keys);
      return value;
    }),
  );
  variantKeys.set(schema, keys);
  return schema as unknown as z.ZodMiniType<
    OneOf<z.output<z.ZodMiniObject<B, z.core.$strip>>, { [K in keyof V]: z.output<V[K]> }>,
    { [K in keyof B]?: z.input<B[K]> } & { [K in keyof V]?: z.input<V[K]> | null }
  >;
}

// ---- request scalars: strict on the way out -------------------------------------------------

const RFC3339 = 'expected an RFC 3339 date-time such as "2026-01-01T00:00:00Z", or a Date';

/**
 * A date-time request field: a `Date` or an RFC 3339 string, sent as an RFC 3339 string.
 *
 * @group Wire model
 */
export const dateTimeInput = z.pipe(
  z.union(
    [
      // RFC 3339 has four-digit years; toISOString() would write "+010000-..." past 9999.
      z
        .date()
        .check(z.refine((d) => d.getUTCFullYear() >= 0 && d.getUTCFullYear() <= 9999, { error: RFC3339 })),
      // RFC 3339 allows a lower-case `t` and `z`; they are sent upper-case, as the service writes them.
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((value: string) => value.toUpperCase()),
        ),
        z.iso.datetime({ offset: true, error: RFC3339 }),
      ),
    ],
    { error: RFC3339 },
  ),
  z.transform((value: Date | string) => (typeof value === 'string' ? value : value.toISOString())),
);

const DURATION = 'expected a duration such as "3600s" or "1.5s", or a number of seconds';
// protobuf's Duration range, in seconds.
const MAX_DURATION_SECONDS = 315_576_000_000;

/**
 * A duration request field: `"3600s"` (protobuf JSON form) or a number of seconds.
 *
 * @group Wire model
 */
export const durationInput = z.pipe(
  z.union(
    [
      z.string().check(z.regex(/^\d{1,12}(\.\d{1,9})?s$/, { error: DURATION })),
      z
        .number()
        .check(
          z.refine((n) => Number.isFinite(n) && n >= 0 && n <= MAX_DURATION_SECONDS, { error: DURATION }),
        ),
    ],
    { error: DURATION },
  ),
  z.transform((value: string | number) =>
    // toFixed(9) then trimming keeps at most 9 fractional digits and never an exponent.
    typeof value === 'string' ? value : `${value.toFixed(9).replace(/\.?0+$/, '')}s`,
  ),
);

const PAGE_SIZE = 'expected an integer: 10 to 100, or 0 for the service default (25)';
/**
 * A page size: an integer. 0 means the service default (25); the client sends anything below 10
 * (negative numbers too, as the service reads them) as 10, and anything above 100 as 100.
 *
 * @group Wire model
 */
export const pageSizeInput = z.int32({ error: PAGE_SIZE });
