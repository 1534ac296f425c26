import * as z from 'zod/mini';

/**
 * The type of an enum the service may extend: its known values, plus any other string.
 * `(string & {})` keeps editor completion for the known values while accepting new ones.
 *
 * @group Wire model
 */
export type OpenEnum<E extends Record<string, string>> = E[keyof E] | (string & {});

/**
 * Builds the constant object of an enum from the service's notation: a shared prefix and the suffixes.
 *
 * @example
 * const TaskState = defineEnum('TASK_STATE_', ['UNSPECIFIED', 'OPEN', 'CLOSED']);
 * TaskState.OPEN; // 'TASK_STATE_OPEN'
 *
 * @group Wire model
 */
export function defineEnum<const P extends string, const K extends readonly string[]>(
  prefix: P,
  suffixes: K,
): { readonly [S in K[number]]: `${P}${S}` } {
  return Object.freeze(Object.fromEntries(suffixes.map((s) => [s, `${prefix}${s}`]))) as {
    readonly [S in K[number]]: `${P}${S}`;
  };
}

/**
 * Tells whether `value` is one of the values this SDK version knows for `enumObject`.
 * Unknown values are legal (the service adds values); use this to branch on them explicitly.
 *
 * @example
 * if (!isKnownEnumValue(TaskState, task.state)) console.warn(`new task state ${task.state}`);
 *
 * @group Wire model
 */
export function isKnownEnumValue<E extends Record<string, string>>(
  enumObject: E,
  value: unknown,
): value is E[keyof E] {
  return typeof value === 'string' && Object.values(enumObject).includes(value);
}

/**
 * The schema of an open enum: any string parses (unknown values pass through unchanged),
 * and the inferred type still lists the known values.
 *
 * @group Wire model
 */
export function openEnum<E extends Record<string, string>>(
  _enumObject: E,
): z.ZodMiniType<OpenEnum<E>, OpenEnum<E>> {
  // Validation is exactly "is a string": an enum-or-string union accepts the same set and costs more.
  return z.string() as unknown as z.ZodMiniType<OpenEnum<E>, OpenEnum<E>>;
}

declare const unlistedBrand: unique symbol;
/**
 * A request value this SDK version does not list, sent on purpose: made by {@link unlisted}.
 * Request types accept the known values only, so a typo is a compile error; this is the way to
 * send a value the service gained after this release.
 *
 * @group Wire model
 */
export type Unlisted = string & { readonly [unlistedBrand]: true };

const acknowledged = new Set<string>();
// Deliberate new values are few; a cap keeps a misuse (unlisted() on every user string) bounded.
const MAX_ACKNOWLEDGED = 10_000;

/**
 * Marks a value this SDK does not list as deliberate, so that a request accepts it and the
 * unknown-value warning stays quiet for it. Use it for values the service added after this release.
 *
 * @example
 * client.tasks.search({ taskStates: [TaskState.OPEN, unlisted('TASK_STATE_ARCHIVED')] });
 *
 * @group Wire model
 */
export function unlisted(value: string): Unlisted {
  if (acknowledged.size < MAX_ACKNOWLEDGED) acknowledged.add(value);
  return value as Unlisted;
}

/** @internal Whether `value` went through {@link unlisted}. */
export function isUnlisted(value: string): boolean {
  return acknowledged.has(value);
}

/**
 * A request enum field: a known value, or one marked with {@link unlisted}.
 *
 * @group Wire model
 */
export type EnumInput<E extends Record<string, string>> = E[keyof E] | Unlisted;

/**
 * The schema of a request enum field: any string is sent as given (the service may know values
 * this SDK does not), while the input type admits known values and {@link unlisted} ones only.
 *
 * @group Wire model
 */
export function requestEnum<E extends Record<string, string>>(
  _enumObject: E,
): z.ZodMiniType<EnumInput<E>, EnumInput<E>> {
  return z.string() as unknown as z.ZodMiniType<EnumInput<E>, EnumInput<E>>;
}
