/**
 * What a user sees of a call besides its data: connection errors that say why, log lines on stderr
 * only, errors that serialise with their message, the answer's status and request ID, and
 * `toArray({ limit })`.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import {
  ConnectionError,
  IdGovClient,
  type Logger,
  NotFoundError,
  RequestValidationError,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { answer, type HostileServer, hostileServer } from '../helpers/hostile-server.ts';

const SECRET = 'cs_observed_S3CRET';
const TOKEN = 'at_observed_T0KEN';
const CREDENTIALS = { clientId: 'sync@tenant.test/pcc', clientSecret: SECRET };

let servers: HostileServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  vi.restoreAllMocks();
});

/** A tenant: a token endpoint, a search that pages `pages` (lists of ids), and one rule `r-1`. */
async function tenant(pages: string[][] = [['a', 'b'], ['c'], ['d', 'e']]) {
  const server = await hostileServer((request, response) => {
    if (request.url === '/auth/v1/token') return answer(response, { access_token: TOKEN, expires_in: 600 });
    if (request.url.startsWith('/api/v1/findings/transformation-rules/')) {
      if (!request.url.endsWith('/r-1')) return answer(response, { message: 'no such rule' }, 404);
      return answer(response, { transformationRule: { id: 'r-1' } }, 200, { 'x-request-id': 'req-rule' });
    }
    const index = Number(JSON.parse(request.body).pageToken ?? 0);
    answer(
      response,
      {
        list: (pages[index] ?? []).map((id) => ({ task: { id } })),
        nextPageToken: index + 1 < pages.length ? String(index + 1) : '',
      },
      200,
      { 'x-request-id': `req-page-${index}` },
    );
  });
  servers.push(server);
  return server;
}

describe('ConnectionError says why and where, never what was sent', () => {
  it('names the refused connection by its code and the host', async () => {
    const closed = await hostileServer(() => {});
    await closed.close(); // its port now refuses connections
    const client = new IdGovClient({ baseUrl: closed.url, credentials: { token: TOKEN }, maxRetries: 0 });
    const error = await caught(client.tasks.search({ query: 'secret-filter' }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain(
      `Could not reach ${new URL(closed.url).host} for POST /api/v1/search/tasks`,
    );
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain(TOKEN);
  });

  it.each([
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND tenant.test'],
    ['CERT_HAS_EXPIRED', 'certificate has expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"],
  ])('names %s from the fetch failure cause', async (code, message) => {
    const failing: typeof fetch = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
    };
    const client = new IdGovClient({
      baseUrl: 'https://tenant.test',
      credentials: { token: TOKEN },
      fetch: failing,
      maxRetries: 0,
    });
    const error = await caught(client.findingRules.get('r-1'));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toBe(
      `@idgov/sdk: Could not reach tenant.test for GET /api/v1/findings/transformation-rules/r-1 after 1 attempt: ${code}. Check the base URL and the network.`,
    );
  });
});

describe('logging', () => {
  it('IDGOV_LOG=debug writes every level to stderr (console.error), nothing to stdout', async () => {
    const server = await tenant();
    const toStdout = [
      vi.spyOn(console, 'log').mockImplementation(() => {}),
      vi.spyOn(console, 'info').mockImplementation(() => {}),
      vi.spyOn(console, 'debug').mockImplementation(() => {}),
    ];
    const toStderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubEnv('IDGOV_LOG', 'debug');
    try {
      const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
      await client.tasks.search({ pageSize: 500 }); // warn (clamped), info (token), debug (requests)
    } finally {
      vi.unstubAllEnvs();
    }
    for (const spy of toStdout) expect(spy).not.toHaveBeenCalled();
    const lines = toStderr.mock.calls.map((args) => inspect(args, { depth: 5 }));
    expect(lines.some((line) => line.includes('pageSize 500 is outside 10..100'))).toBe(true);
    expect(lines.some((line) => line.includes('obtained an access token'))).toBe(true);
    expect(lines.some((line) => line.includes('POST /api/v1/search/tasks 200'))).toBe(true);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(TOKEN);
    }
  });

  it('IDGOV_LOG as a shell user writes it (DEBUG) is taken; one that names no level is said once, at warn', async () => {
    const toStderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      vi.stubEnv('IDGOV_LOG', 'DEBUG');
      createLogger().debug('shown at DEBUG');
      vi.stubEnv('IDGOV_LOG', 'verbose');
      createLogger().debug('not shown at warn');
      createLogger();
    } finally {
      vi.unstubAllEnvs();
    }
    const lines = toStderr.mock.calls.map((args) => String(args[0]));
    toStderr.mockRestore();
    expect(lines).toEqual([
      '[@idgov/sdk] shown at DEBUG',
      '[@idgov/sdk] IDGOV_LOG="verbose" names no level: logging at warn (the levels: off, error, warn, info, debug).',
    ]);
  });

  it('a request debug line shows method, path, the filters (names only) and the page size', async () => {
    const server = await tenant();
    const lines: string[] = [];
    const logger = Object.fromEntries(
      (['error', 'warn', 'info', 'debug'] as const).map((level) => [
        level,
        (message: string, data?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(data)}`),
      ]),
    ) as unknown as Logger;
    const client = new IdGovClient({
      baseUrl: server.url,
      credentials: CREDENTIALS,
      logger,
      logLevel: 'debug',
    });
    await client.tasks.search({
      query: 'payroll',
      taskStates: ['TASK_STATE_OPEN', 'TASK_STATE_CLOSED'],
      pageSize: 20,
    });
    expect(lines).toContain(
      '[@idgov/sdk] task search: POST /api/v1/search/tasks {"filters":"query, taskStates[2]","pageSize":20,"page":"first"}',
    );
    expect(lines.join('\n')).not.toContain('payroll');
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});

describe('errors serialise with their message', () => {
  it('JSON.stringify(error) has name, message, status, request and request ID; no headers, no secret', async () => {
    const server = await tenant();
    const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
    const error = await caught(client.findingRules.get('missing'));
    expect(error).toBeInstanceOf(NotFoundError);
    const json = JSON.parse(JSON.stringify(error));
    expect(json).toMatchObject({
      name: 'NotFoundError',
      message: expect.stringContaining(
        '404 from GET /api/v1/findings/transformation-rules/missing: no such rule.',
      ),
      status: 404,
      body: { message: 'no such rule' },
      request: { method: 'GET', path: '/api/v1/findings/transformation-rules/missing' },
    });
    expect(json).not.toHaveProperty('headers');
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });

  it('a RequestValidationError keeps its field in JSON', async () => {
    const client = new IdGovClient({ baseUrl: 'https://tenant.test', credentials: { token: TOKEN } });
    const error = await caught(client.tasks.search({}, { timeout: 0 }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: 'RequestValidationError',
      field: 'timeout',
    });
  });
});

describe('withResponse() and toArray()', () => {
  it('a single call gives its data with the status, headers and request ID', async () => {
    const server = await tenant();
    const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
    const { data, response } = await client.findingRules.get('r-1').withResponse();
    expect(data?.id).toBe('r-1');
    expect(response.status).toBe(200);
    expect(response.requestId).toBe('req-rule');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await client.findingRules.get('r-1'))?.id).toBe('r-1'); // awaiting still gives the data
  });

  it('a listing gives its first page with the answer, fetched once', async () => {
    const server = await tenant();
    const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
    const search = client.tasks.search();
    const { data, response } = await search.withResponse();
    expect(data.list?.map((v) => v?.task?.id)).toEqual(['a', 'b']);
    expect(response.requestId).toBe('req-page-0');
    expect((await search).list).toBe(data.list);
    expect(server.seen.filter((r) => r.url === '/api/v1/search/tasks')).toHaveLength(1);
  });

  it('pagesWithResponse() gives every page with its own answer', async () => {
    const server = await tenant();
    const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
    const seen: unknown[] = [];
    for await (const { data, response } of client.tasks.search().pagesWithResponse()) {
      seen.push([data.list?.length, response.status, response.requestId]);
    }
    expect(seen).toEqual([
      [2, 200, 'req-page-0'],
      [1, 200, 'req-page-1'],
      [2, 200, 'req-page-2'],
    ]);
  });

  it('toArray() collects every item; toArray({ limit }) stops paging once it has enough', async () => {
    const server = await tenant();
    const client = new IdGovClient({ baseUrl: server.url, credentials: CREDENTIALS });
    const ids = (views: { task?: { id?: string | null } | null }[]) => views.map((v) => v.task?.id);
    expect(ids(await client.tasks.search().toArray())).toEqual(['a', 'b', 'c', 'd', 'e']);
    const searches = () => server.seen.filter((r) => r.url === '/api/v1/search/tasks').length;
    const before = searches();
    expect(ids(await client.tasks.search().toArray({ limit: 3 }))).toEqual(['a', 'b', 'c']);
    expect(searches() - before).toBe(2); // the third page was never asked for
    expect(ids(await client.tasks.search().toArray({ limit: 2 }))).toEqual(['a', 'b']);
    const error = await caught(client.tasks.search().toArray({ limit: 0 }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe('limit');
  });
});
