import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { FindingSeverity, type PreviewRule, previewFindingRules, unlisted } from '../../src/index.ts';
import { BASE, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const LOW = {
  severity: 'FINDING_SEVERITY_LOW',
  tags: { team: 'sec' },
  risk_score: 90,
  findingType: 'FINDING_TYPE_UNUSED_SECRET',
  appId: 'app-1',
};
const rule = (
  id: string,
  order: number,
  transforms: PreviewRule['transforms'],
  extra: Partial<PreviewRule> = {},
): PreviewRule => ({
  id,
  evaluationOrder: order,
  enabled: true,
  condition: '',
  transforms,
  ...extra,
});

describe('previewFindingRules', () => {
  it('applies matching rules in ascending evaluationOrder; the last writer of a field wins', async () => {
    const { finding, trace } = await previewFindingRules(LOW, [
      rule('c', 30, [{ setSeverity: { severity: 'FINDING_SEVERITY_CRITICAL' } }]),
      rule('a', 10, [
        { setSeverity: { severity: 'FINDING_SEVERITY_MEDIUM' } },
        { setTags: { tags: { owner: 'a' } } },
      ]),
      rule('b', 20, [{ setTags: { tags: { owner: 'b' } } }]),
    ]);
    expect(trace.map((t) => t.ruleId)).toEqual(['a', 'b', 'c']);
    expect(finding.severity).toBe('FINDING_SEVERITY_CRITICAL');
    expect(finding.tags).toEqual({ team: 'sec', owner: 'b' });
    expect(trace[1]?.changes).toEqual([{ field: 'tags.owner', transform: 'setTags', from: 'a', to: 'b' }]);
    expect(LOW.tags).toEqual({ team: 'sec' }); // the input is not modified
  });

  it('orders ties by rule ID, whatever the input order', async () => {
    const rules = [rule('z', 5, []), rule('m', 5, []), rule('a', 5, [])];
    expect((await previewFindingRules(LOW, rules)).trace.map((t) => t.ruleId)).toEqual(['a', 'm', 'z']);
    expect((await previewFindingRules(LOW, [...rules].reverse())).trace.map((t) => t.ruleId)).toEqual([
      'a',
      'm',
      'z',
    ]);
  });

  it('set then remove of the same tag removes it; remove then set leaves it set', async () => {
    const setThenRemove = await previewFindingRules(LOW, [
      rule('1', 1, [{ setTags: { tags: { temp: 'x' } } }]),
      rule('2', 2, [{ removeTags: { keys: ['temp'] } }]),
    ]);
    expect(setThenRemove.finding.tags).toEqual({ team: 'sec' });
    expect(setThenRemove.trace[1]?.changes).toEqual([
      { field: 'tags.temp', transform: 'removeTags', from: 'x', to: undefined },
    ]);
    const removeThenSet = await previewFindingRules(LOW, [
      rule('1', 1, [{ removeTags: { keys: ['team'] } }]),
      rule('2', 2, [{ setTags: { tags: { team: 'platform' } } }]),
    ]);
    expect(removeThenSet.finding.tags).toEqual({ team: 'platform' });
  });

  it('evaluates CEL conditions on the finding, with snake_case and camelCase fields', async () => {
    const raise = [{ setSeverity: { severity: FindingSeverity.HIGH } }];
    const { trace, finding } = await previewFindingRules({ ...LOW, riskScore: 42 }, [
      rule('hit', 1, raise, {
        condition: "finding.risk_score > 80 && finding.severity == 'FINDING_SEVERITY_LOW'",
      }),
      rule('miss', 2, [{ setTags: { tags: { x: 'y' } } }], { condition: 'finding.risk_score < 10' }),
      rule('camel', 3, [], { condition: 'finding.risk_score == 42 || finding.riskScore == 42' }),
      rule('tags', 4, [], { condition: "finding.tags.team == 'sec'" }),
    ]);
    expect(trace.map((t) => t.outcome)).toEqual(['applied', 'not-matched', 'applied', 'applied']);
    expect(finding.severity).toBe('FINDING_SEVERITY_HIGH');
    expect(finding.tags).toEqual({ team: 'sec' });
  });

  it('reports an invalid or non-boolean condition in the trace, not as a crash, and does not match', async () => {
    const { trace, finding } = await previewFindingRules(LOW, [
      rule('syntax', 1, [{ setTags: { tags: { a: '1' } } }], { condition: 'finding.severity ==' }),
      rule('type', 2, [{ setTags: { tags: { b: '1' } } }], { condition: 'finding.severity' }),
      rule('missing', 3, [{ setTags: { tags: { c: '1' } } }], { condition: "finding.nope == 'x'" }),
    ]);
    expect(trace.map((t) => t.outcome)).toEqual(['condition-error', 'condition-error', 'condition-error']);
    expect(trace[1]?.reason).toMatch(/not a boolean/);
    expect(finding.tags).toEqual({ team: 'sec' });
  });

  it("refuses a condition whose work would hold the caller's process, in the trace, before evaluating it", async () => {
    const list = `[${Array.from({ length: 20 }, (_, i) => i).join(',')}]`;
    const nested = (depth: number): string =>
      depth === 0 ? 'true' : `${list}.all(x${depth}, ${nested(depth - 1)})`;
    const { trace } = await previewFindingRules(LOW, [
      rule('deep', 1, [{ setTags: { tags: { a: '1' } } }], { condition: nested(6) }),
      rule('long', 2, [{ setTags: { tags: { b: '1' } } }], {
        condition: `${list}.all(a, ${list}.all(b, ${'true && '.repeat(120)}true))`,
      }),
      rule('fine', 3, [{ setTags: { tags: { c: '1' } } }], { condition: nested(2) }),
      // Parentheses and macro names inside a string are text, not comprehensions.
      rule('quoted', 4, [{ setTags: { tags: { d: '1' } } }], {
        condition: `'.all(.all(.all(' != '' && ${list}.exists(y, y == 3)`,
      }),
      // A comment's apostrophe opens no string that would hide the comprehensions after it.
      rule('commented', 5, [{ setTags: { tags: { e: '1' } } }], {
        condition: `// don't tag service accounts\n${nested(3)}`,
      }),
      rule('triple', 6, [{ setTags: { tags: { f: '1' } } }], {
        condition: `'''x'y''' != '' && ${nested(3)}`,
      }),
      rule('regex', 7, [{ setTags: { tags: { g: '1' } } }], {
        condition: `'${'a'.repeat(30)}!'.matches('^(a+)+$')`,
      }),
      // Whitespace or a comment between a macro and its call hides nothing; nor a pattern built with +.
      rule('spaced', 9, [{ setTags: { tags: { i: '1' } } }], {
        condition: `${list}.all   // no one\n(a, ${nested(2)})`,
      }),
      rule('built', 10, [{ setTags: { tags: { j: '1' } } }], {
        condition: `'aaa!'.matches('(a' + '|aa)+$')`,
      }),
      // Repeated groups that neither repeat nor choose inside are fine: a phone number.
      rule('phone', 11, [{ setTags: { tags: { k: '1' } } }], {
        condition: `'555-555-1234'.matches('^(\\\\d{3}-)+\\\\d{4}$')`,
      }),
      // A long condition with no comprehension is cheap: an app in a long list.
      rule('list', 8, [{ setTags: { tags: { h: '1' } } }], {
        condition: `'app-7' in [${Array.from({ length: 200 }, (_, i) => `'app-${i}'`).join(', ')}]`,
      }),
    ]);
    expect(trace.map((t) => t.outcome)).toEqual([
      'condition-error',
      'condition-error',
      'applied',
      'applied',
      'condition-error',
      'condition-error',
      'condition-error',
      'applied',
      'condition-error',
      'condition-error',
      'applied',
    ]);
    expect(trace[0]?.reason).toMatch(/nests 6 comprehensions, deeper than the 2 the preview evaluates/);
    expect(trace[1]?.reason).toMatch(
      /characters, over the 1000 the preview evaluates with comprehensions nested 2 deep/,
    );
    expect(trace[4]?.reason).toMatch(/nests 3 comprehensions/);
    expect(trace[5]?.reason).toMatch(/nests 3 comprehensions/);
    expect(trace[6]?.reason).toMatch(
      /regular expression with a repeated group that repeats or offers a choice/,
    );
  });

  it('skips disabled rules and rules scoped to another finding type or app', async () => {
    const tag = (k: string) => [{ setTags: { tags: { [k]: '1' } } }];
    const { trace, finding } = await previewFindingRules(LOW, [
      rule('off', 1, tag('off'), { enabled: false }),
      rule('type', 2, tag('type'), { findingType: 'FINDING_TYPE_NHI_UNOWNED' }),
      rule('app', 3, tag('app'), { appId: 'app-2' }),
      rule('same-type', 4, tag('same'), { findingType: 'FINDING_TYPE_UNUSED_SECRET', appId: 'app-1' }),
      rule('unspecified', 5, tag('any'), { findingType: 'FINDING_TYPE_UNSPECIFIED' }),
    ]);
    expect(trace.map((t) => t.outcome)).toEqual([
      'disabled',
      'out-of-scope',
      'out-of-scope',
      'applied',
      'applied',
    ]);
    expect(Object.keys(finding.tags ?? {}).sort()).toEqual(['any', 'same', 'team']);
  });

  it('skips and reports a transform kind it does not know', async () => {
    const { trace, finding } = await previewFindingRules(LOW, [
      rule('new', 1, [
        { setAssignee: { userId: 'u-1' } } as never,
        { setSeverity: { severity: 'FINDING_SEVERITY_INFO' } },
      ]),
    ]);
    expect(trace[0]).toMatchObject({ outcome: 'applied', skippedTransforms: ['setAssignee'] });
    expect(finding.severity).toBe('FINDING_SEVERITY_INFO');
  });
});

describe('client.findingRules.preview', () => {
  it('fetches rules by ID, then previews them', async () => {
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, ({ params }) =>
        HttpResponse.json({
          transformationRule: rule(String(params.id), params.id === 'first' ? 1 : 2, [
            {
              setSeverity: {
                severity: params.id === 'first' ? 'FINDING_SEVERITY_MEDIUM' : 'FINDING_SEVERITY_HIGH',
              },
            },
          ]),
        }),
      ),
    );
    const { finding, trace } = await makeClient().findingRules.preview(LOW, ['second', 'first']);
    expect(trace.map((t) => t.ruleId)).toEqual(['first', 'second']);
    expect(finding.severity).toBe('FINDING_SEVERITY_HIGH');
  });
});

describe('a severity or finding type this SDK does not know, in a hand-written rule', () => {
  const messages = () => {
    const lines: string[] = [];
    const logger = { error() {}, warn: (m: string) => lines.push(m), info() {}, debug() {} };
    return { lines, logger };
  };

  it('is applied as given, and warned about once with the closest known value (plain JavaScript)', async () => {
    const { lines, logger } = messages();
    const client = makeClient({ logger });
    const typo = [rule('r1', 1, [{ setSeverity: { severity: 'FINDING_SEVERITY_HIHG' as never } }])];
    const { finding } = await client.findingRules.preview(LOW, typo);
    await client.findingRules.preview(LOW, typo);
    expect(finding.severity).toBe('FINDING_SEVERITY_HIHG');
    expect(lines).toEqual([
      expect.stringContaining(
        'rules[0].transforms[0].setSeverity.severity: "FINDING_SEVERITY_HIHG" is not a value this SDK knows; it is used as given and may match nothing. Did you mean FINDING_SEVERITY_HIGH?',
      ),
    ]);
    await client.findingRules.preview(LOW, [
      rule('r2', 1, [], { findingType: 'FINDING_TYPE_NHI_UNOWNDE' as never }),
    ]);
    expect(lines[1]).toContain('rules[0].findingType: "FINDING_TYPE_NHI_UNOWNDE"');
    expect(lines[1]).toContain('Did you mean FINDING_TYPE_NHI_UNOWNED?');
  });

  it('stays quiet for values marked with unlisted(), for known ones, and for rules the service sent', async () => {
    const { lines, logger } = messages();
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, () =>
        HttpResponse.json({
          transformationRule: rule('new', 1, [
            { setSeverity: { severity: 'FINDING_SEVERITY_EXTREME' as never } },
          ]),
        }),
      ),
    );
    const client = makeClient({ logger });
    await client.findingRules.preview(LOW, ['new']);
    await client.findingRules.preview(LOW, [
      rule('r1', 1, [{ setSeverity: { severity: unlisted('FINDING_SEVERITY_EXTREME') } }]),
      rule('r2', 2, [{ setSeverity: { severity: FindingSeverity.CRITICAL } }]),
    ]);
    expect(lines).toEqual([]);
  });

  it('warns on stderr through previewFindingRules, which has no client', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await previewFindingRules(LOW, [
        rule('r1', 1, [{ setSeverity: { severity: 'FINDING_SEVERITY_CRITICLA' as never } }]),
      ]);
      expect(stderr.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringContaining('Did you mean FINDING_SEVERITY_CRITICAL?'),
      ]);
    } finally {
      stderr.mockRestore();
    }
  });
});
