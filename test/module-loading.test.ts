import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { BASE, CLIENT_SECRET, tokenEndpoint, useMockServer } from './helpers/msw.ts';

const server = useMockServer();
const root = fileURLToPath(new URL('..', import.meta.url));

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
      new URL('../scripts/from-source.ts', import.meta.url).href,
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
  it('importing the SDK loads neither ky, the send path (retries, body cap, error building) nor the response checks; the first request does', async () => {
    // What only a request needs, loaded with it (in a browser bundle: chunks of their own).
    const sendPath = [
      'ky',
      './http-send.ts',
      './retry.ts',
      './api-error.ts',
      '../../schemas/checks.generated.ts',
    ];
    const atImport = await resolvedIn(`await import('@idgov/sdk');`);
    expect(atImport).toContain('@idgov/sdk');
    expect(atImport).toContain('./http.ts');
    expect(atImport.filter((s) => sendPath.includes(s))).toEqual([]);

    const { FakeTenant } = await import('../src/testing/index.ts');
    const tenant = new FakeTenant({ tasks: 3 });
    const listening = await tenant.listen();
    try {
      const afterRequest = await resolvedIn(`const { IdGovClient } = await import('@idgov/sdk');
const client = new IdGovClient({ baseUrl: ${JSON.stringify(listening.url)}, credentials: ${JSON.stringify(tenant.client)} });
await client.tasks.search();`);
      expect(afterRequest).toEqual(expect.arrayContaining(sendPath));
    } finally {
      await listening.close();
    }
  });

  it('importing the webhook helpers loads neither ky, jose nor the delivery (they come with the first send or JWT)', async () => {
    const atImport = await resolvedIn(`await import('@idgov/sdk/webhooks');`);
    expect(atImport).toContain('@idgov/sdk/webhooks');
    expect(atImport).toContain('./sender.ts');
    const lazy = ['ky', './http-send.ts', './deliver.ts', './attempts.ts', './api-error.ts'];
    expect(atImport.filter((s) => lazy.includes(s) || s.startsWith('jose'))).toEqual([]);
  });

  it('the outbox loads no node: module (it runs wherever the sender runs), nor SQLite or pg', async () => {
    const atImport = await resolvedIn(`await import('@idgov/sdk/outbox');`);
    expect(atImport).toContain('@idgov/sdk/outbox');
    expect(atImport.filter((s) => s.startsWith('node:') || s === 'pg' || s === 'ky')).toEqual([]);
  });

  it('a failed load of ky is a ConnectionError that says so, and the next call loads it again', async () => {
    vi.resetModules();
    vi.doMock('ky', () => {
      throw new Error('Failed to fetch dynamically imported module: /assets/ky-3f2a.js');
    });
    try {
      const { ConnectionError, IdGovClient } = await import('../src/index.ts');
      const tokens = tokenEndpoint();
      server.use(
        tokens.handler,
        http.post(`${BASE}/api/v1/search/tasks`, () => HttpResponse.json({ list: [], nextPageToken: '' })),
      );
      const client = new IdGovClient({
        baseUrl: BASE,
        credentials: { clientId: 'id', clientSecret: CLIENT_SECRET },
      });
      const error = await client.tasks.search().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConnectionError);
      expect((error as Error).message).toMatch(
        /^@idgov\/sdk: Could not load ky, the SDK's HTTP layer, for POST \/api\/v1\/search\/tasks: .+ In a browser, check that the bundle's chunks are served\.$/,
      );
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(tokens.state.calls).toBe(0);

      vi.doUnmock('ky');
      const page = await client.tasks.search();
      expect(page.list).toEqual([]);
      expect(tokens.state.calls).toBe(1);
    } finally {
      vi.doUnmock('ky');
      vi.resetModules();
    }
  });

  it.each([
    ['the send path', '../src/core/http-send.ts'],
    ['the webhook delivery', '../src/webhooks/deliver.ts'],
  ])(
    'a failed load of %s is a ConnectionError before anything is sent; the next send loads it again',
    async (_, path) => {
      vi.resetModules();
      vi.doMock(path, () => {
        throw new Error('Failed to fetch dynamically imported module: /assets/chunk-3f2a.js');
      });
      try {
        const { WebhookSender } = await import('../src/webhooks/index.ts');
        const { ConnectionError } = await import('../src/core/errors.ts');
        const url = `${BASE}/api/v1/webhooks/incoming/lst-1`;
        let received = 0;
        server.use(
          http.post(url, () => {
            received += 1;
            return new HttpResponse(null, { status: 200 });
          }),
        );
        const sender = new WebhookSender({ url, hmac: { secret: 'whsec' }, maxRetries: 0 });
        const error = await sender.send({ a: 1 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConnectionError);
        expect((error as Error).message).toMatch(
          /^@idgov\/sdk: Could not load the SDK's HTTP layer for POST \/api\/v1\/webhooks\/incoming\/lst-1: .+ In a browser, check that the bundle's chunks are served\.$/,
        );
        expect(received).toBe(0);

        vi.doUnmock(path);
        const delivery = await sender.send({ a: 1 });
        expect(delivery.status).toBe('delivered');
        expect(delivery.history).toEqual([expect.objectContaining({ httpStatus: 200 })]);
        expect(received).toBe(1);
      } finally {
        vi.doUnmock(path);
        vi.resetModules();
      }
    },
  );
});
