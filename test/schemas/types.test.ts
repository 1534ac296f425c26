// Compile-time behaviour: `npm run typecheck` checks this file; every `@ts-expect-error` line must
// be an error, or the check fails. The runtime part only shows the calls are well formed.
import { describe, expectTypeOf, it } from 'vitest';
import {
  type App,
  type ExpandedField,
  ExpandedType,
  FindingSeverity,
  type FindingTransformationRule,
  FindingType,
  IdGovClient,
  type PreviewRule,
  resolveExpanded,
  type Task,
  type TaskSearchRequest,
  TaskSearchSortBy,
  TaskState,
  type TaskView,
  type UnknownExpanded,
  type User,
  unlisted,
  unlistedTaskType,
} from '../../src/index.ts';

const client = new IdGovClient({ baseUrl: 'https://tenant.test', credentials: { token: 'static-token' } });

describe('request types catch typos', () => {
  it('refuses unknown enum values, task type variants and expand paths at compile time', () => {
    const typos: TaskSearchRequest[] = [
      // @ts-expect-error: the state is TASK_STATE_OPEN
      { taskStates: ['OPEN'] },
      // @ts-expect-error: the variant is grant
      { taskTypes: [{ grnt: {} }] },
      // @ts-expect-error: a filter holds exactly one variant
      { taskTypes: [{ grant: {}, revoke: {} }] },
      // @ts-expect-error: the order is TASK_SEARCH_SORT_BY_CREATED_AT
      { sortBy: 'CREATED' },
      // @ts-expect-error: the path is app_id
      { expandMask: { paths: ['app'] } },
      // @ts-expect-error: a field name typo
      { taskState: [TaskState.OPEN] },
    ];
    expectTypeOf(typos).toBeArray();
  });

  it('accepts known values, and new ones only through the documented escape hatch', () => {
    const request: TaskSearchRequest = {
      taskStates: [TaskState.OPEN, 'TASK_STATE_CLOSED', unlisted('TASK_STATE_ARCHIVED')],
      taskTypes: [{ grant: {} }, { revoke: {} }, unlistedTaskType('escalation')],
      sortBy: TaskSearchSortBy.CREATED_AT,
      expandMask: { paths: ['app_id', '*', unlisted('risk_scores')] },
    };
    expectTypeOf(client.tasks.search(request)).not.toBeAny();
  });

  it('accepts a parsed task type as a filter', async () => {
    const page = await client.tasks.search().catch(() => undefined);
    const type = page?.list?.[0]?.task?.type;
    if (type) expectTypeOf(client.tasks.search({ taskTypes: [type] })).not.toBeAny();
  });
});

describe('finding rules catch typos', () => {
  it('refuses unknown severities and finding types in hand-written rules, and takes new ones through unlisted()', () => {
    const typos: PreviewRule[] = [
      // @ts-expect-error: the severity is FINDING_SEVERITY_HIGH
      { transforms: [{ setSeverity: { severity: 'FINDING_SEVERITY_HIHG' } }] },
      // @ts-expect-error: the type is FINDING_TYPE_NHI_UNOWNED
      { findingType: 'FINDING_TYPE_NHI_UNOWNDE' },
    ];
    const fine: PreviewRule[] = [
      {
        findingType: FindingType.NHI_UNOWNED,
        transforms: [{ setSeverity: { severity: FindingSeverity.HIGH } }],
      },
      { transforms: [{ setSeverity: { severity: 'FINDING_SEVERITY_LOW' } }] },
      { findingType: unlisted('FINDING_TYPE_FROM_THE_FUTURE') },
    ];
    expectTypeOf([...typos, ...fine]).toBeArray();
  });

  it('takes a rule the service sent, whatever its values', () => {
    const fetched = {} as FindingTransformationRule;
    const rules: PreviewRule[] = [fetched];
    expectTypeOf(rules).toBeArray();
    expectTypeOf<FindingTransformationRule['findingType']>().not.toBeAny();
  });
});

describe('responses stay open and typed', () => {
  it('types enum fields of responses as known values or any string', () => {
    expectTypeOf<NonNullable<Task['state']>>().toExtend<string>();
    expectTypeOf<'TASK_STATE_OPEN'>().toExtend<NonNullable<Task['state']>>();
    expectTypeOf<'TASK_STATE_FROM_THE_FUTURE'>().toExtend<NonNullable<Task['state']>>();
  });

  it('resolves appPath to App | UnknownExpanded, narrowed on @type to an App with a typed displayName', () => {
    const view = {} as TaskView;
    const app = resolveExpanded(view, 'appPath');
    expectTypeOf(app).toEqualTypeOf<App | UnknownExpanded | undefined>();
    if (app?.['@type'] === ExpandedType.App) {
      expectTypeOf(app).toEqualTypeOf<App>();
      expectTypeOf(app.displayName).toEqualTypeOf<string | null | undefined>();
      // @ts-expect-error: App has no field dispalyName
      void app.dispalyName;
    }
    expectTypeOf(resolveExpanded(view, 'approversPath')).toEqualTypeOf<(User | UnknownExpanded)[]>();
    expectTypeOf(resolveExpanded(view, 'insightsPath')).toEqualTypeOf<UnknownExpanded[]>();
    // @ts-expect-error: not a path field of a TaskView
    resolveExpanded(view, 'appId');
    expectTypeOf<'appPath'>().toExtend<ExpandedField>();
  });
});
