import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { delay, HttpResponse, http, passthrough } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  APIError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { BASE, CLIENT_SECRET, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const SEARCH = `${BASE}/api/v1/search/tasks`;
const page = () => HttpResponse.json({ list: [{ task: { id: 't-1' } }], nextPageToken: '' });

/** Answers each search with the next of `answers` (the last one repeats), recording the bodies. */
function scripted(answers: Array<() => Response | Promise<Response>>) {
  const bodies: string[] = [];
  const headers: Record<string, string>[] = [];
  const times: number[] = [];
  server.use(
    tokenEndpoint().handler,
    http.post(SEARCH, async ({ request }) => {
      bodies.push(await request.text());
      headers.push(Object.fromEntries(request.headers));
      times.push(Date.now());
      const answer = answers[Math.min(bodies.length, answers.length) - 1];
      return answer ? answer() : page();
    }),
  );
  return { bodies, headers, times };
}

describe('retries', () => {
  it('retries 5xx, 408 and 429 and sends the identical body each time', async () => {
    const calls = scripted([
      () => new HttpResponse('down', { status: 503 }),
      () => new HttpResponse(null, { status: 408 }),
      page,
    ]);
    const first = await makeClient().tasks.search({ query: 'ada', pageSize: 10 });
    expect(first.list?.[0]?.task?.id).toBe('t-1');
    expect(calls.bodies).toHaveLength(3);
    expect(new Set(calls.bodies).size).toBe(1);
    expect(JSON.parse(calls.bodies[0] ?? '')).toEqual({ query: 'ada', pageSize: 10 });
    // Each attempt sends the whole header set, not only the token its hook renews.
    for (const headers of calls.headers) {
      expect(headers).toMatchObject({ authorization: 'Bearer tok-1', 'content-type': 'application/json' });
    }
  });

  it('retries a dropped connection', async () => {
    const calls = scripted([() => HttpResponse.error(), page]);
    await makeClient().tasks.search();
    expect(calls.bodies).toHaveLength(2);
  });

  it('waits as long as Retry-After says (seconds)', async () => {
    const calls = scripted([
      () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '1' } }),
      page,
    ]);
    await makeClient().tasks.search();
    const [a = 0, b = 0] = calls.times;
    expect(b - a).toBeGreaterThanOrEqual(950);
  });

  it('reads Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 2000).toUTCString();
    const calls = scripted([
      () => new HttpResponse(null, { status: 503, headers: { 'retry-after': at } }),
      page,
    ]);
    await makeClient().tasks.search();
    const [a = 0, b = 0] = calls.times;
    expect(b - a).toBeGreaterThanOrEqual(900);
  });

  it('raises a Retry-After beyond the 60 s cap instead of sleeping', async () => {
    const calls = scripted([
      () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '86400' } }),
    ]);
    const started = Date.now();
    const error = await caught(makeClient().tasks.search());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toMatch(/wait 86400 s.*60 s cap/);
    expect(calls.bodies).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('gives up after maxRetries with the last status as the error', async () => {
    const calls = scripted([() => HttpResponse.json({ message: 'boom' }, { status: 500 })]);
    const error = await caught(makeClient({ maxRetries: 1 }).tasks.search());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toEqual({ message: 'boom' });
    expect(calls.bodies).toHaveLength(2);
  });

  it("hands a custom fetch one Request per attempt: the serialised body, every header, redirect 'manual'", async () => {
    const calls = scripted([() => new HttpResponse('down', { status: 503 }), page]);
    const seen: Request[] = [];
    const fetch: typeof globalThis.fetch = (input) => {
      expect(input).toBeInstanceOf(Request);
      seen.push((input as Request).clone());
      return globalThis.fetch(input);
    };
    const options = { headers: { 'x-trace': 'abc' } };
    await makeClient({ fetch }).tasks.search({ query: 'ada', pageSize: 10 }, options);
    const searches = seen.filter(({ url }) => url === SEARCH);
    expect(searches).toHaveLength(2);
    expect(seen.filter(({ url }) => url === `${BASE}/auth/v1/token`)).toHaveLength(1);
    for (const request of searches) {
      expect(request.method).toBe('POST');
      expect(await request.text()).toBe(JSON.stringify({ query: 'ada', pageSize: 10 }));
      expect(request.redirect).toBe('manual');
      expect(request.headers.get('authorization')).toBe('Bearer tok-1');
    }
    // What arrived, the retry included: every header, not only the token the retry hook set.
    expect(calls.headers).toHaveLength(2);
    for (const headers of calls.headers) {
      expect(headers).toMatchObject({
        authorization: 'Bearer tok-1',
        'content-type': 'application/json',
        accept: 'application/json',
        'x-trace': 'abc',
      });
      expect(headers['user-agent']).toMatch(/^idgov-sdk-js\//);
    }
  });

  for (const [status, type] of [
    [400, BadRequestError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ] as const) {
    it(`does not retry ${status}`, async () => {
      const calls = scripted([() => HttpResponse.json({ message: 'no' }, { status })]);
      const error = await caught(makeClient().tasks.search());
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(APIError);
      expect(calls.bodies).toHaveLength(1);
    });
  }
});

describe('timeouts and aborts', () => {
  it('times out each attempt, retries, then raises TimeoutError', async () => {
    const calls = scripted([
      async () => {
        await delay(2000);
        return page();
      },
    ]);
    const error = await caught(makeClient({ timeout: 100, maxRetries: 1 }).tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls.bodies).toHaveLength(2);
  });

  it('times out a body that stalls after the headers (real loopback socket)', async () => {
    // msw cannot model a half-sent body, so this one runs against a real server.
    const stalled = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"list":[');
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const { port } = stalled.address() as AddressInfo;
    server.use(http.all(`http://127.0.0.1:${port}/*`, () => passthrough()));
    try {
      const client = makeClient({ baseUrl: `http://127.0.0.1:${port}`, credentials: { token: 't' } });
      const error = await caught(client.tasks.search({}, { timeout: 200, maxRetries: 0 }));
      expect(error).toBeInstanceOf(TimeoutError);
    } finally {
      stalled.closeAllConnections();
      stalled.close();
    }
  });

  it('aborts at once during a retry wait, and leaves no timer behind', async () => {
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const calls = scripted([() => new HttpResponse(null, { status: 503, headers: { 'retry-after': '30' } })]);
    const controller = new AbortController();
    const pending = caught(makeClient().tasks.search({}, { signal: controller.signal }));
    await delay(150);
    const started = Date.now();
    controller.abort(new Error('user cancelled'));
    const error = await pending;
    expect(Date.now() - started).toBeLessThan(100);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.cause).toEqual(new Error('user cancelled'));
    expect(calls.bodies).toHaveLength(1);
    await delay(10);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(
      timersBefore,
    );
  });

  it('refuses to start with an already aborted signal', async () => {
    scripted([page]);
    const error = await caught(makeClient().tasks.search({}, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortError);
  });
});

describe('errors', () => {
  it('carry status, headers, body and request id, and say what to do', async () => {
    scripted([
      () =>
        HttpResponse.json(
          { message: 'no such rule' },
          { status: 404, headers: { 'x-request-id': 'req-42' } },
        ),
    ]);
    server.use(
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, () =>
        HttpResponse.json(
          { message: 'no such rule' },
          { status: 404, headers: { 'x-request-id': 'req-42' } },
        ),
      ),
    );
    const error = await caught(makeClient().findingRules.get('r-x'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, requestId: 'req-42', body: { message: 'no such rule' } });
    expect(error.headers.get('x-request-id')).toBe('req-42');
    expect(error.message).toBe(
      '@idgov/sdk: 404 from GET /api/v1/findings/transformation-rules/r-x: no such rule. Check the ID and the base URL (one tenant per base URL).',
    );
  });

  it('never show the token or the client secret, in errors or in the client', async () => {
    scripted([() => HttpResponse.json({ message: 'bad' }, { status: 400 })]);
    const client = makeClient();
    const error = await caught(client.tasks.search());
    for (const shown of [
      error.message,
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      String(error),
      inspect(client, { depth: 10 }),
      JSON.stringify(client),
      String(client),
    ]) {
      expect(shown).not.toContain('tok-1');
      expect(shown).not.toContain(CLIENT_SECRET);
    }
    expect(inspect(client)).toContain("baseUrl: 'https://tenant.test'");
    expect(JSON.stringify(client)).toBe(
      '{"baseUrl":"https://tenant.test","credentials":"client credentials (client_id sync@tenant.test/pcc)"}',
    );
  });

  it('wrap a failed connection in ConnectionError with the socket error as cause', async () => {
    const client = makeClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0, credentials: { token: 't' } });
    server.use(http.post('http://127.0.0.1:9/api/v1/search/tasks', () => HttpResponse.error()));
    const error = await caught(client.tasks.search());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/Could not reach 127.0.0.1:9/);
  });
});

describe('a custom fetch', () => {
  it("gets a Request whose signal the caller's abort reaches: the request stops, AbortError", async () => {
    scripted([page]);
    const controller = new AbortController();
    const fetch: typeof globalThis.fetch = async (input) => {
      const request = input as Request;
      if (request.url !== SEARCH) return globalThis.fetch(request);
      controller.abort(new Error('user cancelled'));
      // A fetch that honours the Request's signal, as a proxying one would.
      return new Promise<Response>((_, reject) => {
        if (request.signal.aborted) reject(request.signal.reason);
        request.signal.addEventListener('abort', () => reject(request.signal.reason));
      });
    };
    const error = await caught(makeClient({ fetch }).tasks.search({}, { signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortError);
  });

  it('that logs what it is handed never prints the client secret', async () => {
    scripted([page]);
    const lines: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      lines.push(inspect([input, init], { depth: 5 }));
      return globalThis.fetch(input, init);
    };
    await makeClient({ fetch }).tasks.search({ query: 'ada' });
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(CLIENT_SECRET);
  });

  it('that forwards only the Request it gets sends the token request and the search whole', async () => {
    const calls = scripted([page]);
    const fetch = ((request: Request) => globalThis.fetch(request)) as typeof globalThis.fetch;
    await makeClient({ fetch }).tasks.search({ query: 'ada' });
    expect(calls.bodies).toEqual(['{"query":"ada"}']);
    expect(calls.headers[0]?.authorization).toBe('Bearer tok-1');
  });
});
