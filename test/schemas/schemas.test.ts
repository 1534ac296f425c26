import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FindingTransformationRuleSchema,
  TaskSchema,
  TaskSearchRequestSchema,
  TaskSearchResponseSchema,
} from '../../schemas/index.ts';
import * as sdk from '../../src/index.ts';
import { isKnownEnumValue, TaskState } from '../../src/index.ts';
import { stripDiscriminators } from '../helpers/strip.ts';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/task-search-page.json', import.meta.url), 'utf8'),
);

describe('task search response', () => {
  const page = TaskSearchResponseSchema.parse(structuredClone(fixture));
  const byId = new Map(page.list?.map((v) => [v?.task?.id, v]));

  it('loses nothing: with the added discriminators removed, the parse equals the input', () => {
    expect(stripDiscriminators(page)).toEqual(fixture);
  });

  it('gives every task type variant a kind to switch on, and keeps an unknown variant', () => {
    const kinds = page.list?.map((v) => v?.task?.type?.$kind);
    expect(kinds).toEqual([
      'grant',
      'revoke',
      'revoke',
      'revoke',
      'certify',
      'offboarding',
      'finding',
      'action',
      'action',
      'action',
      'unknown',
      undefined,
    ]);
    const unknown = byId.get('t-new')?.task?.type as Record<string, unknown>;
    expect(unknown.escalation).toEqual({ level: 3 });
  });

  it('narrows on kind to typed variant fields', () => {
    const type = byId.get('2QbFQ0T7lHfrGsmSFpUZsQyKwW8')?.task?.type;
    if (type?.$kind !== 'grant') throw new Error('expected grant');
    expect(type.grant.grantDuration).toBe('3600s');
    expect(type.grant.source?.isExtension).toBe(true);
  });

  it('discriminates nested one-of unions: revoke sources, action targets and instances', () => {
    const sources = ['t-revoke', 't-revoke-2', 't-revoke-3'].map((id) => {
      const type = byId.get(id)?.task?.type;
      return type?.$kind === 'revoke' ? type.revoke.source?.$kind : 'not revoke';
    });
    expect(sources).toEqual(['nonUsage', 'review', 'unknown']);
    const actions = ['t-act-1', 't-act-2', 't-act-3'].map((id) => {
      const type = byId.get(id)?.task?.type;
      return type?.$kind === 'action' ? [type.action.$kind, type.action.actionInstance?.$kind] : [];
    });
    expect(actions).toEqual([
      ['scopeRole', 'connectorResourceActionRef'],
      ['toolCall', 'connectorActionRef'],
      ['finding', undefined],
    ]);
  });

  it('keeps unknown enum values and int64 strings unchanged', () => {
    const task = byId.get('2QbFQ0T7lHfrGsmSFpUZsQyKwW8')?.task;
    expect(task?.actions).toContain('TASK_ACTION_TYPE_TELEPORT');
    expect(task?.numericId).toBe('9007199254740993');
    expect(byId.get('t-new')?.task?.state).toBe('TASK_STATE_SNOOZED');
    expect(isKnownEnumValue(TaskState, 'TASK_STATE_SNOOZED')).toBe(false);
    expect(isKnownEnumValue(TaskState, byId.get('t-revoke')?.task?.state)).toBe(true);
  });

  it('keeps null arrays as null (documented: responses are not rewritten)', () => {
    expect(byId.get('2QbFQ0T7lHfrGsmSFpUZsQyKwW8')?.task?.approverIds).toBeNull();
  });

  it('discriminates form fields, relationships and policy steps', () => {
    const task = byId.get('2QbFQ0T7lHfrGsmSFpUZsQyKwW8')?.task;
    expect(task?.form?.fields?.map((f) => f?.$kind)).toEqual(['stringField', 'unknown']);
    expect(task?.form?.fieldRelationships?.[0]?.$kind).toBe('dependentOn');
    expect(task?.policy?.current?.$kind).toBe('approval');
    expect(task?.policy?.next?.map((s) => s?.$kind)).toEqual(['provision', 'unknown']);
  });

  it('drops "__proto__" keys instead of letting them become a prototype', () => {
    const input = JSON.parse('{"id":"t","data":{"__proto__":{"isAdmin":true},"a":1},"__proto__":{"x":1}}');
    const task = TaskSchema.parse(input) as Record<string, unknown> & { data: Record<string, unknown> };
    expect(task.data).toEqual({ a: 1 });
    expect(task.data.isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(task.data)).toBe(Object.prototype);
    expect(Object.keys(task)).toEqual(['id', 'data']);
  });

  it('rejects a page whose nextPageToken is not a string', () => {
    expect(TaskSearchResponseSchema.safeParse({ list: [], nextPageToken: 5 }).success).toBe(false);
  });
});

describe('finding transformation rule', () => {
  it('parses every transform kind and keeps an unknown one', () => {
    const rule = FindingTransformationRuleSchema.parse({
      id: 'r-1',
      findingType: 'FINDING_TYPE_FROM_THE_FUTURE',
      evaluationOrder: 3,
      transforms: [
        { setSeverity: { severity: 'FINDING_SEVERITY_HIGH' } },
        { setTags: { tags: { team: 'sec' } } },
        { removeTags: { keys: ['tmp'] } },
        { setAssignee: { userId: 'u-1' } },
      ],
    });
    expect(rule.transforms?.map((t) => t?.$kind)).toEqual([
      'setSeverity',
      'setTags',
      'removeTags',
      'unknown',
    ]);
    expect((rule.transforms?.[3] as Record<string, unknown> | undefined)?.setAssignee).toEqual({
      userId: 'u-1',
    });
    expect(rule.findingType).toBe('FINDING_TYPE_FROM_THE_FUTURE');
  });
});

describe('enum constants', () => {
  const constants = Object.values(sdk as Record<string, unknown>).filter(
    (v): v is Record<string, string> =>
      !!v &&
      typeof v === 'object' &&
      Object.isFrozen(v) &&
      Object.values(v).every((x) => typeof x === 'string'),
  );
  const { lists } = JSON.parse(
    readFileSync(new URL('../fixtures/known-enum-values.json', import.meta.url), 'utf8'),
  ) as { lists: string[][] };
  it('hold every value list the service publishes, each list in one constant', () => {
    expect(lists.length).toBeGreaterThan(25);
    for (const list of lists) {
      const home = constants.find((c) => list.every((value) => Object.values(c).includes(value)));
      expect(home, `no enum constant holds ${list.join(', ')}`).toBeDefined();
    }
  });
});

describe('task search request', () => {
  const fail = (request: unknown) => {
    const result = TaskSearchRequestSchema.safeParse(request);
    expect(result.success).toBe(false);
    return result.error?.issues[0];
  };

  it('rejects wrong types, naming the field', () => {
    expect(fail({ pageSize: 'ten' })?.path).toEqual(['pageSize']);
    expect(fail({ taskStates: 3 })?.path).toEqual(['taskStates']);
    expect(fail({ createdAfter: 'yesterday' })).toMatchObject({
      path: ['createdAfter'],
      message: expect.stringMatching(/RFC 3339/),
    });
    expect(fail({ pageSize: 2.5 })?.path).toEqual(['pageSize']);
    expect(fail({ olderThanDuration: '1h' })?.path).toEqual(['olderThanDuration']);
    expect(fail({ taskTypes: [{ grant: {}, revoke: {} }] })?.path).toEqual(['taskTypes', 0]);
    expect(fail({ pagesize: 10 })?.code).toBe('unrecognized_keys');
    expect(fail({ createdAfter: new Date('+010000-01-01T00:00:00Z') })?.path).toEqual(['createdAfter']);
  });

  it('serialises dates and durations, and keeps unknown enum strings', () => {
    const body = TaskSearchRequestSchema.parse({
      createdAfter: new Date('2026-01-01T00:00:00Z'),
      createdBefore: '2026-02-01T00:00:00+01:00',
      olderThanDuration: 90.5,
      includeActedAfter: null,
      taskStates: ['TASK_STATE_OPEN', 'TASK_STATE_FROM_THE_FUTURE'],
      taskTypes: [{ grant: {} }, { quantum: {} }],
      expandMask: { paths: ['app_id', '*'] },
    });
    expect(body).toEqual({
      createdAfter: '2026-01-01T00:00:00.000Z',
      createdBefore: '2026-02-01T00:00:00+01:00',
      olderThanDuration: '90.5s',
      includeActedAfter: null,
      taskStates: ['TASK_STATE_OPEN', 'TASK_STATE_FROM_THE_FUTURE'],
      taskTypes: [{ grant: {} }, { quantum: {} }],
      expandMask: { paths: ['app_id', '*'] },
    });
    expect(TaskSearchRequestSchema.parse({ olderThanDuration: 3600 }).olderThanDuration).toBe('3600s');
    expect(TaskSearchRequestSchema.parse({ olderThanDuration: 1e-9 }).olderThanDuration).toBe('0.000000001s');
  });
});
