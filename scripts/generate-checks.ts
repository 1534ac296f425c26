/**
 * Writes schemas/checks.generated.ts: for each response schema, a plain function that tells whether
 * a value parsed by `JSON.parse` matches it, without copying it. `npm run generate:checks` runs it;
 * a test fails when the file is not what this script makes of the schemas as they are.
 *
 * Why generated source rather than checks built at run time: a check built from closures reads every
 * field through `value[key]` with a key that varies, which V8 can only look up the slow way, and it
 * cost a broad page 3 to 4 times as much. Generated code reads `value["id"]`, a fixed name V8 caches.
 * Written at build time, it is plain code, so browsers with a strict Content Security Policy (no
 * `eval`, no `new Function`) run the same checks as servers.
 *
 * What the checks accept is what zod's parse accepts; the only write is the `$kind` discriminator of
 * "exactly one variant" objects, which zod's parse adds too. A schema using something only zod runs
 * (a refinement, a transform) gets no check and is parsed by zod.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import type * as z from 'zod/mini';
import { AppEntitlementListResponseSchema } from '../schemas/app-entitlement.ts';
import { EXPANDED_SCHEMAS } from '../schemas/expanded.ts';
import { GetFindingTransformationRuleResponseSchema } from '../schemas/finding-rule.ts';
import { TaskSearchResponseSchema } from '../schemas/task-search.ts';
import { TokenResponseSchema } from '../schemas/token.ts';
import { variantKeysOf } from '../schemas/wire.ts';

/** The response schemas to check in place, by the name their import has in the generated file. */
const ROOTS = {
  TaskSearchResponseSchema: { schema: TaskSearchResponseSchema, from: './task-search.ts' },
  AppEntitlementListResponseSchema: {
    schema: AppEntitlementListResponseSchema,
    from: './app-entitlement.ts',
  },
  GetFindingTransformationRuleResponseSchema: {
    schema: GetFindingTransformationRuleResponseSchema,
    from: './finding-rule.ts',
  },
  TokenResponseSchema: { schema: TokenResponseSchema, from: './token.ts' },
  EXPANDED_SCHEMAS: { schema: EXPANDED_SCHEMAS, from: './expanded.ts' },
} as const;

type Def = {
  readonly type: string;
  readonly format?: string;
  readonly coerce?: boolean;
  readonly checks?: readonly unknown[];
  readonly innerType?: z.core.$ZodType;
  readonly element?: z.core.$ZodType;
  readonly keyType?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
  readonly shape?: Record<string, z.core.$ZodType>;
  readonly catchall?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
};

class Unsupported extends Error {}

/**
 * The schema's definition, if it asks nothing only zod can run: a refinement (`.check(...)`), a
 * format (`z.email()`, `z.int()`, `z.uuid()`: a schema that is its own check) or coercion. Else the
 * schema gets no generated check, and zod parses it.
 */
function zodFree(schema: z.core.$ZodType, hint: string): Def {
  const def = schema._zod.def as Def;
  if (def.checks?.length || def.format || def.coerce || schema._zod.traits.has('$ZodCheck'))
    throw new Unsupported(`${hint}: a refinement, format or coercion`);
  return def;
}

const ACCEPTS_ANYTHING = 'true';

/** Emits the check functions of one run, each schema object once however often it is used. */
class Emitter {
  readonly functions: string[] = [];
  readonly #names = new Map<object, string>();
  readonly #used = new Set<string>();

  /** The name of the function that checks `schema`, emitting it (and what it uses) the first time. */
  functionFor(schema: z.core.$ZodType, hint: string, body: () => string): string {
    let name = this.#names.get(schema);
    if (name) return name;
    name = this.#unique(hint);
    this.#names.set(schema, name);
    this.functions.push(body().replace(/^function \w+/, `function ${name}`));
    return name;
  }

  #unique(hint: string): string {
    const base = `check${hint.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
    let name = base;
    for (let i = 2; this.#used.has(name); i++) name = `${base}${i}`;
    this.#used.add(name);
    return name;
  }

  /**
   * An expression that is true when the value at `x` matches `schema`. `x` is a property read
   * (`value.id`) or a local, so it may be read twice: a second read of a fixed name costs nothing.
   */
  test(schema: z.core.$ZodType, x: string, hint: string): string {
    const def = zodFree(schema, hint);
    switch (def.type) {
      case 'string':
      case 'number':
      case 'boolean':
        return `is${SCALARS[def.type]}(${x})`;
      case 'unknown':
      case 'any':
        return ACCEPTS_ANYTHING;
      case 'optional':
      case 'nullable': {
        const inner = def.innerType as z.core.$ZodType;
        const innerDef = inner._zod.def as Def;
        // Most response fields are both, most of them scalars: one small helper for those.
        const both = innerDef.type === (def.type === 'optional' ? 'nullable' : 'optional');
        if (both) zodFree(inner, hint);
        const value = both ? (innerDef.innerType as z.core.$ZodType) : inner;
        const scalar = SCALARS[zodFree(value, hint).type];
        if (both && scalar) return `nullish${scalar}(${x})`;
        const test = this.test(value, x, hint);
        if (test === ACCEPTS_ANYTHING) return ACCEPTS_ANYTHING;
        const absent = both
          ? `${x} == null`
          : def.type === 'optional'
            ? `${x} === undefined`
            : `${x} === null`;
        return `(${absent} || ${test})`;
      }
      case 'array': {
        const element = this.test(def.element as z.core.$ZodType, 'item', `${hint} item`);
        if (element === ACCEPTS_ANYTHING) return `Array.isArray(${x})`;
        const name = this.functionFor(
          schema,
          `${hint} list`,
          () => `function f(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!${element}) return false;
  return true;
}`,
        );
        return `${name}(${x})`;
      }
      case 'record': {
        if (!def.keyType || zodFree(def.keyType, `${hint} key`).type !== 'string')
          throw new Unsupported(`${hint}: record key`);
        const entry = this.test(def.valueType as z.core.$ZodType, 'item', `${hint} value`);
        if (entry === ACCEPTS_ANYTHING) return `isObject(${x})`;
        const name = this.functionFor(
          schema,
          `${hint} map`,
          () => `function f(value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in value) {
    const item = value[key];
    if (!${entry}) return false;
  }
  return true;
}`,
        );
        return `${name}(${x})`;
      }
      case 'object':
        return `${this.#object(schema, hint)}(${x})`;
      case 'pipe': {
        const variants = variantKeysOf(schema);
        if (!variants) throw new Unsupported(`${hint}: a transform`);
        const object = this.#object(def.in as z.core.$ZodType, `${hint} fields`);
        // The first variant set, as `setVariant` finds it, read by fixed names: its loop reads
        // `value[key]` with varying keys, a lookup V8 cannot cache per place, on every such object.
        const firstSet = [
          ...variants.map((key) => `${read('fields', key)} != null ? ${quote(key)}`),
          `'unknown'`,
        ];
        const name = this.functionFor(
          schema,
          hint,
          () => `function f(value: unknown): boolean {
  if (!${object}(value)) return false;
  const fields = value as Record<string, unknown>;
  fields[VARIANT] =
    ${firstSet.join(' :\n    ')};
  return true;
}`,
        );
        return `${name}(${x})`;
      }
      default:
        throw new Unsupported(`${hint}: ${def.type}`);
    }
  }

  /** The function checking a loose object: its known fields, each read by its fixed name. */
  #object(schema: z.core.$ZodType, hint: string): string {
    const def = schema._zod.def as Def;
    // Only loose objects (unknown fields kept); strict ones are request schemas.
    if ((def.catchall?._zod.def as Def | undefined)?.type !== 'unknown')
      throw new Unsupported(`${hint}: object`);
    return this.functionFor(schema, hint, () => {
      const tests = ['isObject(value)'];
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const access = read('value', key);
        const test = this.test(field, access, `${hint} ${key}`);
        if (test !== ACCEPTS_ANYTHING) tests.push(test);
        // zod requires the key of a non-optional `unknown` field to be present.
        else if (field._zod.optin !== 'optional') tests.push(`${access} !== undefined`);
      }
      return `function f(value: unknown): boolean {
  return (
    ${tests.join(' &&\n    ')}
  );
}`;
    });
  }
}

const SCALARS: Record<string, string | undefined> = {
  string: 'String',
  number: 'Number',
  boolean: 'Boolean',
};

/** Reading `key` of `object` as source text: by its name where it is an identifier. */
const read = (object: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${object}.${key}` : `${object}[${quote(key)}]`;

/** `value` as source text, in single quotes. */
const quote = (value: unknown) => JSON.stringify(value).replaceAll('"', "'").replaceAll("','", "', '");

// The small tests the checks call, by name; V8 inlines them where they are called.
const HELPERS: Record<string, string> = {
  isObject: `const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);`,
  isString: `const isString = (value: unknown) => typeof value === 'string';`,
  isNumber: `const isNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value);`,
  isBoolean: `const isBoolean = (value: unknown) => typeof value === 'boolean';`,
  nullishString: `// Missing or null, or else the type: most fields of a response.
const nullishString = (value: unknown) => value == null || typeof value === 'string';`,
  nullishNumber: `const nullishNumber = (value: unknown) => value == null || (typeof value === 'number' && Number.isFinite(value));`,
  nullishBoolean: `const nullishBoolean = (value: unknown) => value == null || typeof value === 'boolean';`,
};

/** The definitions of the helpers `code` calls. */
function helpers(code: string): string {
  const used = Object.entries(HELPERS).filter(([name]) => code.includes(`${name}(`));
  return `${used.map(([, definition]) => definition).join('\n')}\n`;
}

/** The generated file's text. */
export function checksSource(): string {
  const emitter = new Emitter();
  const entries: string[] = [];
  const skipped: string[] = [];
  const rootSchemas: [string, z.core.$ZodType][] = [];
  for (const [name, { schema }] of Object.entries(ROOTS)) {
    if (name === 'EXPANDED_SCHEMAS') {
      for (const [type, expanded] of Object.entries(schema))
        rootSchemas.push([`EXPANDED_SCHEMAS.${type}`, expanded]);
    } else rootSchemas.push([name, schema as z.core.$ZodType]);
  }
  for (const [name, schema] of rootSchemas) {
    const hint = name.replace(/^EXPANDED_SCHEMAS\./, 'Expanded ').replace(/Schema$/, '');
    try {
      const test = emitter.test(schema, 'value', hint);
      const check = /^\w+\(value\)$/.test(test) ? test.slice(0, -'(value)'.length) : undefined;
      if (!check) throw new Unsupported(`${name}: not an object`);
      entries.push(`  [${name}, ${check}],`);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      skipped.push(`// ${name} is parsed by zod: ${error.message}.`);
    }
  }
  const used = new Set(entries.map((entry) => entry.match(/^ {2}\[(\w+)/)?.[1]));
  const imports = Object.entries(ROOTS)
    .filter(([name]) => used.has(name))
    .map(([name, { from }]) => `import { ${name} } from '${from}';`)
    .sort((a, b) => (a.split("'")[1] ?? '').localeCompare(b.split("'")[1] ?? ''));
  return `// Generated by scripts/generate-checks.ts from the response schemas; do not edit: run
// \`npm run generate:checks\` after changing a schema (a test fails until you do).
${imports.join('\n')}
import { VARIANT } from './wire.ts';

${helpers(emitter.functions.join('\n'))}
${emitter.functions.join('\n\n')}

${skipped.join('\n')}
/** @internal Each response schema's check of a parsed value, made without copying it. */
export const IN_PLACE_CHECKS: ReadonlyMap<object, (value: unknown) => boolean> = /* @__PURE__ */ new Map<
  object,
  (value: unknown) => boolean
>([
${entries.join('\n')}
]);
`;
}

/** Where the generated file lives. */
export const CHECKS_FILE = new URL('../schemas/checks.generated.ts', import.meta.url);

if (import.meta.main) {
  writeFileSync(CHECKS_FILE, checksSource());
  console.log(`wrote ${CHECKS_FILE.pathname}`);
}
