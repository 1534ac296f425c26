import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TaskSearchRequestSchema, TaskSearchResponseSchema, TaskTypeSchema } from '../../schemas/index.ts';
import { TaskState } from '../../src/index.ts';
import { stripDiscriminators } from '../helpers/strip.ts';

// Wire-shaped values as a growing service may send them: known fields with any legal value or null,
// unknown fields, unknown enum strings, unknown variants.
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const unknownFields = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }).map((k) => `zz${k}`),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);
// Any key but "__proto__", which parsing drops on purpose (see schemas.test.ts).
const ownKey = fc.string().filter((key) => key !== '__proto__');
const enumValue = (known: readonly string[]) =>
  fc.oneof(fc.constantFrom(...known), fc.stringMatching(/^[A-Z][A-Z_]{0,30}$/));
const withUnknown = <T extends object>(arb: fc.Arbitrary<T>) =>
  fc.tuple(arb, unknownFields).map(([known, extra]) => ({ ...extra, ...known }));

const grant = withUnknown(
  fc.record(
    {
      appId: maybe(fc.string()),
      grantDuration: maybe(fc.constantFrom('3600s', '1.5s')),
      outcome: maybe(enumValue(['GRANT_OUTCOME_GRANTED'])),
    },
    { requiredKeys: [] },
  ),
);
const revoke = withUnknown(
  fc.record(
    {
      appId: maybe(fc.string()),
      source: maybe(
        fc.oneof(
          fc.record({ review: fc.record({ accessReviewId: fc.string() }) }),
          fc.record({ nonUsage: fc.record({ lastLogin: maybe(fc.string()) }) }),
          fc.record({ futureSource: fc.object({ maxDepth: 1 }) }),
        ),
      ),
    },
    { requiredKeys: [] },
  ),
);
const variant = fc.oneof(
  grant.map((grant) => ({ grant })),
  revoke.map((revoke) => ({ revoke })),
  fc.record({ offboarding: fc.record({ subjectUserId: fc.string() }) }),
  fc.record({
    finding: fc.record({ findingId: fc.string(), outcome: enumValue(['FINDING_TASK_OUTCOME_REMEDIATED']) }),
  }),
  fc.record({ brandNewVariant: fc.object({ maxDepth: 1 }) }),
);
const task = withUnknown(
  fc.record(
    {
      id: fc.string(),
      numericId: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
      displayName: maybe(fc.string()),
      state: maybe(enumValue(Object.values(TaskState))),
      actions: maybe(fc.array(enumValue(['TASK_ACTION_TYPE_APPROVE']), { maxLength: 3 })),
      approverIds: maybe(fc.array(fc.string(), { maxLength: 3 })),
      createdAt: maybe(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      commentCount: maybe(fc.integer()),
      emergencyAccess: maybe(fc.boolean()),
      data: maybe(fc.dictionary(ownKey, fc.jsonValue({ maxDepth: 2 }))),
      type: maybe(variant),
    },
    { requiredKeys: ['id'] },
  ),
);
const page = withUnknown(
  fc.record(
    {
      list: maybe(
        fc.array(
          withUnknown(
            fc.record({ task: maybe(task), appPath: fc.constant('$.expanded[0]') }, { requiredKeys: [] }),
          ),
          { maxLength: 4 },
        ),
      ),
      expanded: maybe(fc.array(withUnknown(fc.record({ '@type': fc.string() })), { maxLength: 3 })),
      nextPageToken: fc.string(),
    },
    { requiredKeys: ['nextPageToken'] },
  ),
);

describe('properties of the wire model', () => {
  it('any valid response parses and keeps every known and unknown field', () => {
    fc.assert(
      fc.property(page, (wire) => {
        const input = JSON.parse(JSON.stringify(wire));
        const parsed = TaskSearchResponseSchema.parse(structuredClone(input));
        expect(stripDiscriminators(parsed)).toEqual(input);
      }),
      { numRuns: 300 },
    );
  });

  it('an unknown variant parses as $kind "unknown" with its data kept', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-zA-Z]{2,12}$/), fc.object({ maxDepth: 1 }), (key, value) => {
        fc.pre(!['grant', 'revoke', 'certify', 'offboarding', 'action', 'finding', '$kind'].includes(key));
        const parsed = TaskTypeSchema.parse({ [key]: value }) as Record<string, unknown>;
        expect(parsed.$kind).toBe('unknown');
        expect(parsed[key]).toEqual(value);
      }),
    );
  });

  const rfc3339Date = fc.date({
    noInvalidDate: true,
    min: new Date(0),
    max: new Date('9999-12-31T23:59:59Z'),
  });
  const request = fc.record(
    {
      query: fc.string(),
      pageSize: fc.integer({ min: 0, max: 500 }),
      taskStates: fc.array(enumValue(Object.values(TaskState)), { maxLength: 3 }),
      taskTypes: fc.array(fc.constantFrom({ grant: {} }, { revoke: {} }, { someFutureKind: {} }), {
        maxLength: 2,
      }),
      createdAfter: fc.oneof(
        rfc3339Date,
        rfc3339Date.map((d) => d.toISOString()),
      ),
      olderThanDuration: fc.oneof(
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.double({ min: 0, max: 10 ** 6, noNaN: true }),
      ),
      expandMask: fc.record({
        paths: fc.array(fc.constantFrom('*', 'app_id', 'future_path'), { maxLength: 3 }),
      }),
      includeDeleted: fc.boolean(),
    },
    { requiredKeys: [] },
  );

  it('any valid request serialises to a body the schema accepts unchanged', () => {
    fc.assert(
      fc.property(request, (input) => {
        const body = TaskSearchRequestSchema.parse(input);
        const sent = JSON.parse(JSON.stringify(body));
        expect(TaskSearchRequestSchema.parse(sent)).toEqual(sent);
        expect(sent.taskStates).toEqual(input.taskStates);
      }),
      { numRuns: 300 },
    );
  });
});
