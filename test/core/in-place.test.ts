import { readFileSync } from 'node:fs';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { EXPANDED_SCHEMAS, ExpandedType, expandedTypeName } from '../../schemas/expanded.ts';
import {
  AppEntitlementListResponseSchema,
  GetFindingTransformationRuleResponseSchema,
  TaskSearchResponseSchema,
} from '../../schemas/index.ts';
import { CHECKS_FILE, checksSource } from '../../scripts/generate-checks.ts';
import { inPlaceCheck, parseResponse } from '../../src/core/validation/validation.ts';
import { expandPage } from '../../src/testing/expand.ts';
import { FakeData, fakeRule } from '../../src/testing/fake-data.ts';

// The in-place check must accept exactly what zod's parse accepts, and leave the value equal to what
// zod's parse returns. Pages are mutated at random places into what a hostile or buggy service
// might send, and both are run on separate copies.

const fixturePage = readFileSync(new URL('../fixtures/task-search-page.json', import.meta.url), 'utf8');
const data = new FakeData(5);
const broadPage = JSON.stringify({
  ...expandPage(
    Array.from({ length: 12 }, (_, i) =>
      data.task({
        variant: (['grant', 'revoke', 'certify', 'action', 'finding', 'offboarding'] as const)[i % 6],
      }),
    ),
    ['*'],
  ),
  nextPageToken: 'next',
});
const rulePage = JSON.stringify({ transformationRule: fakeRule() });
const entitlementPage = JSON.stringify({
  list: Array.from({ length: 5 }, () => data.entitlement('app-1')),
  nextPageToken: 'next',
});
// One object of each known expanded type, as a broad page inlines them.
const expandedObjects = new Map<string, string>();
for (const entry of (JSON.parse(broadPage) as { expanded: Record<string, Json>[] }).expanded) {
  const name = expandedTypeName(entry);
  if (name && !expandedObjects.has(name)) expandedObjects.set(name, JSON.stringify({ ...entry, extra: [1] }));
}
// The fake tenant inlines no resources: these two as the service would send them.
expandedObjects.set(
  'AppResource',
  JSON.stringify({
    '@type': ExpandedType.AppResource,
    id: 'res-1',
    appId: 'app-1',
    appResourceTypeId: 'type-1',
    displayName: 'prod-db',
    annotations: { tags: ['pii'] },
    grantCount: '12',
    parentResourceId: null,
  }),
);
expandedObjects.set(
  'AppResourceType',
  JSON.stringify({
    '@type': ExpandedType.AppResourceType,
    id: 'type-1',
    appId: 'app-1',
    traitIds: ['t', null],
  }),
);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `value`, the root excluded. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, Json][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

const DELETE = Symbol('delete');
const replacement = fc.constantFrom<Json | typeof DELETE>(
  DELETE,
  null,
  0,
  1.5,
  'text',
  true,
  [],
  [null],
  {},
  { '@type': 7 },
  ['a', null],
);

function mutate(raw: string, path: (string | number)[], value: Json | typeof DELETE): string {
  const root = JSON.parse(raw) as Json;
  let parent = root as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (value === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = value;
  return JSON.stringify(root);
}

function agree(schema: z.core.$ZodType, raw: string): void {
  const check = inPlaceCheck(schema);
  expect(check).toBeDefined();
  const inPlace = JSON.parse(raw) as unknown;
  const ok = check?.(inPlace);
  const parsed = (schema as unknown as z.ZodMiniType).safeParse(JSON.parse(raw));
  expect(ok).toBe(parsed.success);
  if (parsed.success) expect(inPlace).toStrictEqual(parsed.data);
}

describe('in-place check of responses', () => {
  it('is generated from the schemas as they are (run `npm run generate:checks` after changing one)', () => {
    expect(readFileSync(CHECKS_FILE, 'utf8')).toBe(checksSource());
  });

  it('exists for every response a page or a resolved object is checked against', () => {
    expect(Object.keys(EXPANDED_SCHEMAS).filter((name) => !expandedObjects.has(name))).toEqual([]);
    for (const schema of [
      TaskSearchResponseSchema,
      AppEntitlementListResponseSchema,
      GetFindingTransformationRuleResponseSchema,
      ...Object.values(EXPANDED_SCHEMAS),
    ]) {
      expect(inPlaceCheck(schema)).toBeTypeOf('function');
    }
  });

  for (const [name, schema, raw] of [
    ['the fixture page', TaskSearchResponseSchema, fixturePage],
    ['a broad page with every expand path', TaskSearchResponseSchema, broadPage],
    ['a rule lookup', GetFindingTransformationRuleResponseSchema, rulePage],
    ['an entitlement listing', AppEntitlementListResponseSchema, entitlementPage],
    ...[...expandedObjects].map(
      ([name, raw]) =>
        [`an expanded ${name}`, EXPANDED_SCHEMAS[name as keyof typeof EXPANDED_SCHEMAS], raw] as const,
    ),
  ] as const) {
    it(`accepts and rejects exactly what zod does, on ${name} mutated anywhere`, () => {
      agree(schema, raw);
      const paths = pathsOf(JSON.parse(raw) as Json);
      fc.assert(
        fc.property(fc.constantFrom(...paths), replacement, (path, value) => {
          agree(schema, mutate(raw, path, value));
        }),
        { numRuns: 400 },
      );
    });
  }

  it('returns the parsed JSON itself, with the $kind discriminators added', () => {
    const page = parseResponse(TaskSearchResponseSchema, broadPage, 'task search');
    const again = JSON.parse(broadPage) as { list: { task: { type: Record<string, unknown> } }[] };
    expect(page.list?.map((v) => v?.task?.type?.$kind)).toEqual(
      again.list.map((v) => Object.keys(v.task.type).find((k) => v.task.type[k] != null)),
    );
  });

  for (const [how, key] of [
    ['written plainly', '__proto__'],
    ['written with escapes', '\\u005f_proto\\u005F_'],
    ['written with every letter escaped', '\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f'],
  ]) {
    it(`drops a "__proto__" key ${how}, at any depth, so no copy of the data gains a prototype`, () => {
      const raw = `{"list":[{"task":{"id":"t1","${key}":{"a":1},"data":{"x":{"${key}":{"polluted":true}}}}}],"nextPageToken":"","${key}":{"b":1}}`;
      const page = parseResponse(TaskSearchResponseSchema, raw, 'task search');
      const task = page.list?.[0]?.task as Record<string, unknown> & { data: { x: object } };
      for (const object of [page, task, task.data.x]) {
        expect(Object.hasOwn(object, '__proto__')).toBe(false);
        expect(Object.getPrototypeOf(Object.assign({}, object))).toBe(Object.prototype);
      }
      expect(task.id).toBe('t1');
    });
  }

  // The checks walk each object's own keys: whatever else an object holds, and in whatever order, a
  // known field is checked, and the last of a repeated key is the one checked, as JSON.parse keeps it.
  for (const [what, task, valid] of [
    ['integer-like keys before it', '{"0":1,"7":[],"id":5}', false],
    ['integer-like keys, valid', '{"0":1,"7":[],"id":"t1"}', true],
    [
      "Object.prototype's names as keys",
      '{"constructor":1,"toString":"x","hasOwnProperty":null,"id":5}',
      false,
    ],
    ['a repeated key, the last invalid', '{"id":"t1","id":5}', false],
    ['a repeated key, the last valid', '{"id":5,"id":"t1"}', true],
    ['a preset $kind on a variant', '{"id":"t1","type":{"$kind":"bogus","grant":{}}}', true],
    ['an unknown key holding anything', '{"zz":{"deep":[1,{"x":null}]},"id":"t1"}', true],
  ] as const) {
    it(`checks a task's known fields with ${what}`, () => {
      const raw = `{"list":[{"task":${task}}],"nextPageToken":""}`;
      const check = inPlaceCheck(TaskSearchResponseSchema);
      const parsed = TaskSearchResponseSchema.safeParse(JSON.parse(raw));
      expect(check?.(JSON.parse(raw))).toBe(valid);
      expect(parsed.success).toBe(valid);
    });
  }

  it('leaves a value that merely mentions __proto__ alone', () => {
    const raw =
      '{"list":[{"task":{"id":"t1","description":"see \\"__proto__\\" and \\u00e9"}}],"nextPageToken":""}';
    const page = parseResponse(TaskSearchResponseSchema, raw, 'task search');
    expect(page.list?.[0]?.task?.description).toBe('see "__proto__" and é');
  });
});
