import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IdGovClient, resolveExpanded } from '../../src/index.ts';
import { FakeTenant } from '../../src/testing/index.ts';

// resolveExpanded returns nothing in two cases that are the caller's to fix; each is said once.
describe('resolveExpanded when it can only return nothing', () => {
  const tenant = new FakeTenant({ tasks: 30, seed: 3 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  const clientWithLog = () => {
    const lines: string[] = [];
    const logger = { error() {}, warn: (m: string) => lines.push(m), info() {}, debug() {} };
    return {
      lines,
      client: new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client, logger }),
    };
  };

  it('names the expand path to add, once per client, when the search did not expand the field', async () => {
    const { lines, client } = clientWithLog();
    const page = await client.tasks.search({ expandMask: { paths: ['app_id'] } });
    const views = (page.list ?? []).filter((v) => v?.task?.userId);
    expect(views.length).toBeGreaterThan(1);
    for (const view of views) expect(resolveExpanded(view!, 'userPath')).toBeUndefined();
    expect(resolveExpanded(views[0]!, 'appPath')).toBeDefined();
    expect(lines).toEqual([
      expect.stringContaining(
        "resolveExpanded(view, 'userPath') resolves to nothing: the search did not expand user_id. Add 'user_id' to expandMask.paths.",
      ),
    ]);
    expect(resolveExpanded(views[0]!, 'approversPath')).toEqual([]);
    expect(lines[1]).toContain("Add 'approver_ids' to expandMask.paths.");
    expect(lines).toHaveLength(2);
  });

  it('says nothing when the path was asked for (by name or with *), or for a search without expanded objects asked', async () => {
    const { lines, client } = clientWithLog();
    for await (const view of client.tasks.search({ expandMask: { paths: ['user_id'] } }))
      resolveExpanded(view, 'userPath');
    for await (const view of client.tasks.search({ expandMask: { paths: ['*'] } }))
      resolveExpanded(view, 'appPath');
    expect(lines).toEqual([]);
  });

  it('says once that a copied view has lost its page, and resolves when given the page', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { client } = clientWithLog();
      const page = await client.tasks.search({ expandMask: { paths: ['app_id'] } });
      const view = page.list?.find((v) => v?.appPath);
      const copy = { ...view! };
      const viaJson = JSON.parse(JSON.stringify(view));
      expect(resolveExpanded(copy, 'appPath')).toBeUndefined();
      expect(resolveExpanded(viaJson, 'appPath')).toBeUndefined();
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringContaining("resolveExpanded(view, 'appPath') found no page to resolve against"),
      ]);
      expect(resolveExpanded(copy, 'appPath', page.expanded)?.id).toBe(resolveExpanded(view!, 'appPath')?.id);
      expect(stderr).toHaveBeenCalledTimes(1);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('expanded object types, whatever the package prefix of their @type', () => {
  it('are recognised by what follows the prefix, checked against their type and narrowed', async () => {
    const { expandedTypeName, isExpandedType } = await import('../../src/index.ts');
    for (const prefix of ['c1.api', 'svc.api']) {
      const app = { '@type': `type.googleapis.com/${prefix}.app.v1.App`, id: 'a', displayName: 'GitHub' };
      expect(expandedTypeName(app)).toBe('App');
      expect(isExpandedType(app, 'App')).toBe(true);
      expect(isExpandedType(app, 'User')).toBe(false);
      const view = { appPath: '$.expanded[0]' };
      const resolved = resolveExpanded(view, 'appPath', [app]);
      expect(isExpandedType(resolved, 'App') ? resolved.displayName : '-').toBe('GitHub');
      // Checked against App: a displayName that is not a string is refused, under either prefix.
      const bad = { '@type': `type.googleapis.com/${prefix}.app.v1.App`, displayName: 42 };
      expect(() => resolveExpanded({ appPath: '$.expanded[0]' }, 'appPath', [bad])).toThrow(/displayName/);
    }
    expect(expandedTypeName({ '@type': 'type.googleapis.com/svc.api.app.v1.Unheard' })).toBeUndefined();
    expect(expandedTypeName({ '@type': 'app.v1.App' })).toBeUndefined();
    expect(isExpandedType(undefined, 'App')).toBe(false);
  });
});
