import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `code` in a fresh Node process that records every module specifier it resolves. */
async function resolvedIn(code: string): Promise<string[]> {
  const hooks = `import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ resolve(specifier, context, next) { seen.push(specifier); return next(specifier, context); } });
process.on('exit', () => console.log(JSON.stringify(seen)));`;
  // Asynchronous: the second case's child calls a server in this process, which must keep serving.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      new URL('../../scripts/from-source.ts', import.meta.url).href,
      '--import',
      `data:text/javascript,${encodeURIComponent(hooks)}`,
      '--input-type=module',
      '-e',
      code,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as string[];
}

describe('what loads, where and when', () => {
  // Loaded on first use only, as each spares a user a dependency they may not have or a large
  // cost: jose (JWTs), cel-js (rule previews), pg, msw and node:http (the fake tenant's server).
  const onFirstUse = (specifier: string) =>
    specifier.startsWith('jose') || specifier.includes('cel-js') || specifier === 'pg' || specifier === 'msw';

  it('importing the SDK loads neither jose, cel-js, pg, msw nor any node: module; a task search loads no more of them', async () => {
    const atImport = await resolvedIn(`await import('@idgov/sdk');`);
    expect(atImport).toContain('@idgov/sdk');
    expect(atImport).toContain('ky');
    expect(atImport.filter((s) => onFirstUse(s) || s.startsWith('node:'))).toEqual([]);

    const { FakeTenant } = await import('../../src/testing/index.ts');
    const tenant = new FakeTenant({ tasks: 3 });
    const listening = await tenant.listen();
    try {
      const afterRequest = await resolvedIn(`const { IdGovClient } = await import('@idgov/sdk');
const client = new IdGovClient({ baseUrl: ${JSON.stringify(listening.url)}, credentials: ${JSON.stringify(tenant.client)} });
await client.tasks.search();`);
      expect(afterRequest.filter((s) => onFirstUse(s) || s.startsWith('node:'))).toEqual([]);
    } finally {
      await listening.close();
    }
  });

  it('importing the webhook helpers does not load jose (it comes with the first JWT)', async () => {
    const atImport = await resolvedIn(`await import('@idgov/sdk/webhooks');`);
    expect(atImport).toContain('@idgov/sdk/webhooks');
    expect(atImport).toContain('./sender.ts');
    expect(atImport.filter(onFirstUse)).toEqual([]);
  });

  it('the outbox loads no node: module (it runs wherever the sender runs), nor SQLite or pg', async () => {
    const atImport = await resolvedIn(`await import('@idgov/sdk/outbox');`);
    expect(atImport).toContain('@idgov/sdk/outbox');
    expect(atImport.filter((s) => s.startsWith('node:') || s === 'pg')).toEqual([]);
  });
});
