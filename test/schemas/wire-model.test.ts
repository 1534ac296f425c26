import { readFileSync } from 'node:fs';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { EXPANDED_SCHEMAS } from '../../schemas/expanded.ts';
import { TaskSearchRequestSchema } from '../../schemas/index.ts';
import {
  ExpandedType,
  expandedTypeName,
  type Logger,
  type PreviewRule,
  previewFindingRules,
  ResponseValidationError,
  resolveExpanded,
  type TaskSearchRequest,
  TaskState,
  unlisted,
  unlistedTaskType,
} from '../../src/index.ts';
import { BASE, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const SEARCH = `${BASE}/api/v1/search/tasks`;
const expandedFixture = JSON.parse(
  readFileSync(new URL('../fixtures/expanded-objects.json', import.meta.url), 'utf8'),
) as Record<string, unknown>[];

/** Serves `pages` in turn from task search, recording each request body. */
function servePages(...pages: unknown[]) {
  const bodies: Record<string, unknown>[] = [];
  const token = tokenEndpoint();
  server.use(
    token.handler,
    http.post(SEARCH, async ({ request }) => {
      bodies.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json(pages[bodies.length - 1] as Record<string, unknown>);
    }),
  );
  return bodies;
}

function capturingLogger() {
  const warnings: string[] = [];
  const logger: Logger = { error() {}, warn: (m) => warnings.push(m), info() {}, debug() {} };
  return { logger, warnings };
}

describe('a page is never lost to what the service may legally send', () => {
  it('keeps an action task whose toolCall has no toolOutput, and one whose toolOutput is any JSON', async () => {
    servePages({
      list: [
        { task: { id: 'a', type: { action: { toolCall: { toolName: 'x' } } } } },
        { task: { id: 'b', type: { action: { toolCall: { toolOutput: null } } } } },
        { task: { id: 'c', type: { action: { toolCall: { toolOutput: [1, { a: 'b' }] } } } } },
      ],
      nextPageToken: '',
    });
    const page = await makeClient().tasks.search();
    const outputs = page.list?.map((v) => {
      const type = v?.task?.type;
      return type?.$kind === 'action' && type.action.$kind === 'toolCall' ? type.action.toolCall : undefined;
    });
    expect(outputs).toEqual([{ toolName: 'x' }, { toolOutput: null }, { toolOutput: [1, { a: 'b' }] }]);
  });

  it('keeps null elements of arrays and maps, and iteration skips a null view', async () => {
    const page = {
      list: [
        null,
        {
          task: {
            id: 't1',
            approverIds: ['u1', null],
            annotations: [null, { '@type': 'x' }],
            actions: [null],
          },
          objectPermissions: { extra: { canFly: null, canRead: true } },
        },
      ],
      expanded: [null, { '@type': 'type.googleapis.com/c1.api.app.v1.App', id: 'a' }],
      nextPageToken: '',
    };
    servePages(page, page);
    const client = makeClient();
    const first = await client.tasks.search();
    expect(first).toEqual(page);
    const ids: (string | null | undefined)[] = [];
    for await (const view of client.tasks.search()) ids.push(view.task?.id);
    expect(ids).toEqual(['t1']);
  });

  it('keeps null removeTags keys and non-string setTags values of a rule', async () => {
    const token = tokenEndpoint();
    const rule = {
      id: 'r1',
      transforms: [
        { removeTags: { keys: ['a', null] } },
        { setTags: { tags: { n: 5, o: { deep: true }, s: null } } },
      ],
    };
    server.use(
      token.handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/r1`, () =>
        HttpResponse.json({ transformationRule: rule }),
      ),
    );
    const parsed = await makeClient().findingRules.get('r1');
    expect(parsed).toEqual({
      id: 'r1',
      transforms: [
        { removeTags: { keys: ['a', null] }, $kind: 'removeTags' },
        { setTags: { tags: { n: 5, o: { deep: true }, s: null } }, $kind: 'setTags' },
      ],
    });
  });

  it('reads expires_in sent as a numeric string, and treats an odd one as absent (the default lifetime)', async () => {
    let expiresIn: unknown = '3600';
    let tokens = 0;
    server.use(
      http.post(`${BASE}/auth/v1/token`, () => {
        tokens += 1;
        return HttpResponse.json({
          access_token: `tok-${tokens}`,
          token_type: 'Bearer',
          expires_in: expiresIn,
        });
      }),
      http.post(SEARCH, () => HttpResponse.json({ list: [], nextPageToken: '' })),
    );
    const client = makeClient();
    await client.tasks.search();
    await client.tasks.search();
    expect(tokens).toBe(1); // cached for its 3600 s
    for (const odd of ['soon', '-5', '1e3', -5, { s: 1 }]) {
      expiresIn = odd;
      const fresh = makeClient();
      const before = tokens;
      await fresh.tasks.search();
      await fresh.tasks.search();
      expect(tokens - before, `expires_in ${JSON.stringify(odd)}`).toBe(1); // kept for the default 5 minutes
    }
  });
});

describe('the $kind discriminator', () => {
  it('leaves service fields named kind and targetKind as sent', async () => {
    servePages({
      list: [
        {
          task: {
            type: {
              kind: 'service-kind',
              action: { targetKind: 'service-target', finding: { findingId: 'f' } },
            },
          },
        },
      ],
      nextPageToken: '',
    });
    const page = await makeClient().tasks.search();
    const type = page.list?.[0]?.task?.type as Record<string, unknown> & {
      $kind: string;
      action: Record<string, unknown>;
    };
    expect(type.kind).toBe('service-kind');
    expect(type.$kind).toBe('action');
    expect(type.action.targetKind).toBe('service-target');
    expect(type.action.$kind).toBe('finding');
  });

  it('lets a parsed task.type be passed back as a filter: its variant is sent, empty, without $kind', async () => {
    const bodies = servePages(
      {
        list: [
          { task: { id: 't', type: { revoke: { appId: 'a1' }, grant: null } } },
          { task: { id: 'u', type: { escalation: { level: 2 } } } },
        ],
        nextPageToken: '',
      },
      { list: [], nextPageToken: '' },
      { list: [], nextPageToken: '' },
    );
    const client = makeClient();
    const first = await client.tasks.search();
    const [revoke, unknown] = (first.list ?? []).map((view) => view?.task?.type);
    if (!revoke || !unknown) throw new Error('expected two task types');
    await client.tasks.search({ taskTypes: [revoke] });
    expect(bodies[1]).toEqual({ taskTypes: [{ revoke: {} }] });
    await client.tasks.search({ taskTypes: [unknown] });
    expect(bodies[2]).toEqual({ taskTypes: [{ escalation: {} }] });
  });

  it('treats a variant set to null in a hand-written filter as unset', () => {
    expect(TaskSearchRequestSchema.parse({ taskTypes: [{ grant: {}, revoke: null }] }).taskTypes).toEqual([
      { grant: {} },
    ]);
  });
});

describe('requests', () => {
  it('accepts lower-case t and z in date-times, sending them upper-case', () => {
    expect(TaskSearchRequestSchema.parse({ createdAfter: '2026-01-01t10:00:00z' }).createdAfter).toBe(
      '2026-01-01T10:00:00Z',
    );
  });

  it('warns once per unknown value, naming the field and the closest known value, and still sends it', async () => {
    const bodies = servePages(...Array.from({ length: 3 }, () => ({ list: [], nextPageToken: '' })));
    const { logger, warnings } = capturingLogger();
    const client = makeClient({ logger, logLevel: 'warn' });
    const typo = {
      taskStates: ['OPEN'],
      taskTypes: [{ grnt: {} }],
      sortBy: 'CREATED',
      expandMask: { paths: ['app'] },
    } as unknown as Parameters<typeof client.tasks.search>[0];
    await client.tasks.search(typo);
    await client.tasks.search(typo);
    expect(bodies[0]).toEqual(typo);
    expect(warnings).toHaveLength(4);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/taskStates: "OPEN" .*Did you mean TASK_STATE_OPEN\?/),
        expect.stringMatching(/taskTypes: "grnt" .*Did you mean grant\? .*pass unlistedTaskType\('grnt'\)/),
        expect.stringMatching(/sortBy: "CREATED" .*Did you mean TASK_SEARCH_SORT_BY_CREATED_AT\?/),
        expect.stringMatching(/expandMask\.paths: "app" .*Did you mean app_id\?/),
      ]),
    );
    // Values marked on purpose pass quietly.
    await client.tasks.search({
      taskStates: [TaskState.OPEN, unlisted('TASK_STATE_ARCHIVED')],
      taskTypes: [unlistedTaskType('escalation')],
    });
    expect(warnings).toHaveLength(4);
    expect(bodies[2]).toEqual({
      taskStates: ['TASK_STATE_OPEN', 'TASK_STATE_ARCHIVED'],
      taskTypes: [{ escalation: {} }],
    });
  });
});

describe('the unknown-value warning by default', () => {
  it('reaches stderr (console.error) with no logger or level configured', async () => {
    servePages({ list: [], nextPageToken: '' });
    const lines: unknown[][] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args));
    const saved = process.env.IDGOV_LOG;
    delete process.env.IDGOV_LOG;
    try {
      await makeClient().tasks.search({ taskStates: ['OPEN'] } as unknown as TaskSearchRequest);
    } finally {
      spy.mockRestore();
      if (saved !== undefined) process.env.IDGOV_LOG = saved;
    }
    expect(lines.map((args) => String(args[0]))).toEqual([
      expect.stringMatching(/^\[@idgov\/sdk\] taskStates: "OPEN" .*TASK_STATE_OPEN/),
    ]);
  });
});

describe('the unknown-value warning stays bounded', () => {
  it('stops after 1,000 different values, with one line saying so, and shortens long values', async () => {
    servePages(...Array.from({ length: 3 }, () => ({ list: [], nextPageToken: '' })));
    const { logger, warnings } = capturingLogger();
    const client = makeClient({ logger, logLevel: 'warn' });
    const many = Array.from({ length: 1_200 }, (_, i) => `STATE_${i}`);
    await client.tasks.search({ taskStates: many } as unknown as TaskSearchRequest);
    expect(warnings).toHaveLength(1_001);
    expect(warnings.at(-1)).toMatch(/no more are logged/);
    const fresh = capturingLogger();
    const long = 'X'.repeat(50_000);
    await makeClient({ logger: fresh.logger, logLevel: 'warn' }).tasks.search({
      sortBy: long,
    } as unknown as TaskSearchRequest);
    expect(fresh.warnings).toHaveLength(1);
    expect(fresh.warnings[0]?.length).toBeLessThan(500);
  });
});

describe('typed expanded objects', () => {
  it('recognises each known @type by what follows its package prefix, and nothing else', () => {
    expect(expandedTypeName({ '@type': 'type.googleapis.com/c1.api.app.v1.App' })).toBe('App');
    expect(expandedTypeName({ '@type': ExpandedType.AppResourceType })).toBe('AppResourceType');
    expect(expandedTypeName({ '@type': 'type.googleapis.com/c1.api.app.v1.Application' })).toBeUndefined();
    expect(expandedTypeName({ '@type': 'type.googleapis.com/other.api.app.v1.App' })).toBe('App');
    expect(expandedTypeName({ '@type': 'type.googleapis.com/svc.api.user.v1.User' })).toBe('User');
    expect(expandedTypeName({ '@type': 'c1.api.app.v1.App' })).toBeUndefined();
    expect(expandedTypeName({})).toBeUndefined();
  });

  it('parses every known type from realistic JSON with nulls, unknown fields and unknown enums, losing nothing', () => {
    const seen = new Set<string>();
    for (const object of expandedFixture) {
      const name = expandedTypeName(object);
      if (!name) continue;
      seen.add(name);
      const parsed = EXPANDED_SCHEMAS[name].safeParse(structuredClone(object));
      expect(parsed.success, `${name}: ${parsed.error?.message}`).toBe(true);
      expect(parsed.data).toEqual(object);
    }
    expect([...seen].sort()).toEqual(Object.keys(ExpandedType).sort());
  });

  it('resolves a view path to its typed object, checks it once, and keeps unknown types as they came', async () => {
    const app = expandedFixture.find((o) => expandedTypeName(o) === 'App');
    const future = { '@type': 'type.googleapis.com/c1.api.future.v9.Thing', id: 'x', anything: [1] };
    servePages({
      list: [{ task: { id: 't' }, appPath: '$.expanded[1]', insightsPath: '$.expanded[0, 2]' }],
      expanded: [future, app, null],
      nextPageToken: '',
    });
    const page = await makeClient().tasks.search();
    const view = page.list?.[0];
    if (!view) throw new Error('expected a view');
    const resolved = resolveExpanded(view, 'appPath');
    expect(resolved).toEqual(app);
    if (resolved?.['@type'] !== ExpandedType.App) throw new Error('expected an App');
    expect(resolved.displayName).toBe('GitHub Enterprise');
    expect(resolveExpanded(view, 'insightsPath')).toEqual([future]);
    // Checked once: the same object comes back again without a second check (a later change to it,
    // which a check would refuse, goes unnoticed), and it is the page's own object, not a copy.
    (resolved as unknown as Record<string, unknown>).displayName = 42;
    expect(resolveExpanded(view, 'appPath')).toBe(resolved);
    expect(page.expanded?.[1]).toBe(resolved);
  });

  it('throws a ResponseValidationError naming the field when a known type has a wrong field type', async () => {
    servePages({
      list: [{ task: { id: 't' }, appPath: '$.expanded[0]' }],
      expanded: [{ '@type': 'type.googleapis.com/c1.api.app.v1.App', displayName: 42 }],
      nextPageToken: '',
    });
    const page = await makeClient().tasks.search(); // the page itself is fine: only @type is checked
    const view = page.list?.[0];
    if (!view) throw new Error('expected a view');
    const error = (() => {
      try {
        resolveExpanded(view, 'appPath');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).message).toMatch(
      /expanded\[0\] \(App\).*displayName: expected string/,
    );
  });
});

describe('rule preview', () => {
  it('applies every kind a transform object holds: removeTags, then setTags, then setSeverity', async () => {
    const { finding, trace } = await previewFindingRules(
      { severity: 'FINDING_SEVERITY_LOW', tags: { a: '1', b: '2' } },
      [
        {
          id: 'r',
          enabled: true,
          transforms: [
            {
              setSeverity: { severity: 'FINDING_SEVERITY_HIGH' },
              setTags: { tags: { a: 'set', n: 7 } },
              removeTags: { keys: ['a', 'b'] },
            },
          ],
        },
      ],
    );
    expect(finding).toEqual({ severity: 'FINDING_SEVERITY_HIGH', tags: { a: 'set', n: 7 } });
    expect(trace[0]?.changes.map((c) => `${c.transform}:${c.field}`)).toEqual([
      'removeTags:tags.a',
      'removeTags:tags.b',
      'setTags:tags.a',
      'setTags:tags.n',
      'setSeverity:severity',
    ]);
  });

  it('applies the known kinds of a transform and reports the unknown ones beside them', async () => {
    const { finding, trace } = await previewFindingRules({ tags: {} }, [
      {
        id: 'r',
        enabled: true,
        transforms: [{ setTags: { tags: { x: 'y' } }, setAssignee: { userId: 'u' } }, null],
      } as PreviewRule,
    ]);
    expect(finding.tags).toEqual({ x: 'y' });
    expect(trace[0]?.skippedTransforms).toEqual(['setAssignee']);
  });
});
