/**
 * Typed hooks, against the fake tenant on loopback: what each event says, in what order, for
 * retries, token refreshes and pages; that a throwing hook changes nothing; that no event holds a
 * secret; and that errors carry the request ID and the system error code.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  IdGovClient,
  type Logger,
  NotFoundError,
  type RequestEndEvent,
  type RequestEvent,
  type ResponseEvent,
  ResponseValidationError,
  type RetryEvent,
  type TokenEvent,
} from '../../src/index.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';

const SEARCH = '/api/v1/search/tasks';

/** A `fetch` that answers the first `count` searches itself, with `answer`, and sends the rest on. */
function failingFirst(count: number, answer: () => Response): typeof fetch {
  let left = count;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname === SEARCH && left > 0) {
      left -= 1;
      return Promise.resolve(answer());
    }
    return fetch(input, init);
  };
}

/** Every event of every kind a client tells, in order, as [name, event] pairs. */
function recorder() {
  const seen: Array<[string, unknown]> = [];
  const hook =
    <E>(name: string) =>
    (event: E) =>
      seen.push([name, event]);
  return {
    seen,
    hooks: {
      request: hook<RequestEvent>('request'),
      response: hook<ResponseEvent>('response'),
      retry: hook<RetryEvent>('retry'),
      requestEnd: hook<RequestEndEvent>('requestEnd'),
      token: hook<TokenEvent>('token'),
      page: hook('page'),
    },
    names: () => seen.map(([name]) => name),
    of: <E>(name: string) => seen.filter(([n]) => n === name).map(([, event]) => event as E),
  };
}

describe('client hooks', () => {
  const tenant = new FakeTenant({ tasks: 30, seed: 3 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('tell a search as token, request, response, requestEnd and page, each naming the request', async () => {
    const events = recorder();
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      hooks: events.hooks,
    });
    await client.tasks.search({ pageSize: 10 });
    expect(events.names()).toEqual([
      'request', // the token endpoint's
      'response',
      'requestEnd',
      'token',
      'request',
      'response',
      'requestEnd',
      'page',
    ]);
    const [tokenRequest, search] = events.of<RequestEvent>('request');
    expect(tokenRequest).toMatchObject({
      method: 'POST',
      path: '/auth/v1/token',
      attempt: 1,
      maxAttempts: 3,
    });
    expect(search).toMatchObject({
      method: 'POST',
      path: SEARCH,
      url: `${tenant.baseUrl}${SEARCH}`,
      attempt: 1,
      maxAttempts: 3,
      idempotent: true,
    });
    expect(search?.requestNumber).not.toBe(tokenRequest?.requestNumber);
    const response = events.of<ResponseEvent>('response')[1];
    expect(response).toMatchObject({ requestNumber: search?.requestNumber, status: 200, attempt: 1 });
    expect(response?.requestId).toMatch(/^fake-req-\d+$/);
    expect(response?.bytes).toBeGreaterThan(1000);
    expect(response?.durationMs).toBeGreaterThanOrEqual(0);
    expect(events.of<RequestEndEvent>('requestEnd')[1]).toMatchObject({
      requestNumber: search?.requestNumber,
      attempts: 1,
      status: 200,
      requestId: response?.requestId,
    });
    expect(events.of('page')).toEqual([
      expect.objectContaining({
        what: 'task search',
        page: 1,
        items: 10,
        itemsSoFar: 10,
        more: true,
        requestId: response?.requestId,
        bytes: response?.bytes,
      }),
    ]);
    expect(events.of<TokenEvent>('token')).toEqual([
      { reason: 'first', expiresInSeconds: 600, durationMs: expect.any(Number) },
    ]);
  });

  it('report progress through a whole listing, page by page, as toArray reads it', async () => {
    const pages: Array<{ page: number; itemsSoFar: number; more: boolean }> = [];
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
    const all = await client.tasks
      .search(
        { pageSize: 10 },
        { hooks: { page: ({ page, itemsSoFar, more }) => pages.push({ page, itemsSoFar, more }) } },
      )
      .toArray();
    expect(all).toHaveLength(30);
    expect(pages).toEqual([
      { page: 1, itemsSoFar: 10, more: true },
      { page: 2, itemsSoFar: 20, more: true },
      { page: 3, itemsSoFar: 30, more: false },
    ]);
  });

  it('tell a retry before its wait: why, after how long, which attempt of how many', async () => {
    const events = recorder();
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      hooks: events.hooks,
      fetch: failingFirst(
        1,
        () => new Response('{}', { status: 503, headers: { 'x-request-id': 'req-503' } }),
      ),
    });
    await client.tasks.search({ pageSize: 10 });
    const searchEvents = events.seen
      .filter(([, e]) => (e as { path?: string }).path === SEARCH)
      .map(([n]) => n);
    expect(searchEvents).toEqual(['request', 'response', 'retry', 'request', 'response', 'requestEnd']);
    const [retry] = events.of<RetryEvent>('retry');
    expect(retry).toMatchObject({ attempt: 1, maxAttempts: 3, reason: 'status', status: 503 });
    // The first backoff is 0.5 s with equal jitter: between 250 and 500 ms.
    expect(retry?.delayMs).toBeGreaterThanOrEqual(250);
    expect(retry?.delayMs).toBeLessThanOrEqual(500);
    expect(events.of<RequestEvent>('request').at(-1)).toMatchObject({ attempt: 2 });
    expect(events.of<RequestEndEvent>('requestEnd').at(-1)).toMatchObject({ attempts: 2, status: 200 });
  });

  it("tell Retry-After as the retry's wait", async () => {
    const waits: number[] = [];
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      hooks: { retry: (event) => waits.push(event.delayMs) },
      fetch: failingFirst(1, () => new Response('{}', { status: 429, headers: { 'retry-after': '1' } })),
    });
    await client.tasks.search();
    expect(waits).toEqual([1000]);
  });

  it('tell a token refused by the API once, as `refused`, and never a token or secret in any event', async () => {
    let skew = 0;
    const skewed = new FakeTenant({ tasks: 5, now: () => Date.now() + skew });
    const { url, close: closeSkewed } = await skewed.listen();
    try {
      const events = recorder();
      const client = new IdGovClient({ baseUrl: url, credentials: skewed.client, hooks: events.hooks });
      await client.tasks.search();
      skew = 3_600_000; // the tenant's clock jumps past the token's expiry; the client's does not
      await client.tasks.search();
      expect(events.of<TokenEvent>('token').map((e) => e.reason)).toEqual(['first', 'refused']);
      const all = JSON.stringify(events.seen);
      expect(all).not.toContain('fake-at-');
      expect(all).not.toContain(skewed.client.clientSecret);
      expect(events.of<ResponseEvent>('response').map((e) => e.status)).toContain(401);
    } finally {
      await closeSkewed();
    }
  });

  it('ignore a hook that throws, logging it, and the call succeeds as without it', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logger,
      hooks: {
        request: () => {
          throw new Error('dashboard offline');
        },
      },
    });
    const page = await client.tasks.search({ pageSize: 10 });
    expect(page.list).toHaveLength(10);
    expect(lines.some((line) => /'request' hook threw \(dashboard offline\); ignored/.test(line))).toBe(true);
  });

  it('ignore whatever a hook throws (a Symbol, a null-prototype object, an async rejection of either), logging it', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const odd = Object.create(null) as object;
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      logger,
      hooks: {
        request: () => {
          throw Symbol('gone');
        },
        response: () => {
          throw odd;
        },
        page: async () => {
          throw Symbol('async gone');
        },
        requestEnd: () => Promise.reject(odd),
      },
    });
    const page = await client.tasks.search({ pageSize: 10 });
    expect(page.list).toHaveLength(10);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines).toEqual(
      expect.arrayContaining([
        "[@idgov/sdk] a 'request' hook threw (Symbol(gone)); ignored",
        "[@idgov/sdk] a 'response' hook threw ([object Object]); ignored",
        "[@idgov/sdk] a 'page' hook threw (Symbol(async gone)); ignored",
        "[@idgov/sdk] a 'requestEnd' hook threw ([object Object]); ignored",
      ]),
    );
  });

  it("add and remove handlers with hooks.on; the call's own hooks hear after the client's", async () => {
    const order: string[] = [];
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
    const off = client.hooks.on('page', () => order.push('client'));
    await client.tasks.search({}, { hooks: { page: () => order.push('call') } });
    off();
    await client.tasks.search();
    expect(order).toEqual(['client', 'call']);
    expect(() => client.hooks.on('page', 'not a function' as never)).toThrow(TypeError);
  });
});

describe('errors carry what identifies them', () => {
  const tenant = new FakeTenant({ tasks: 1 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('an API error carries the request ID the service sent, and requestEnd tells it', async () => {
    const ends: RequestEndEvent[] = [];
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      hooks: { requestEnd: (e) => ends.push(e) },
    });
    const error = await caught(client.findingRules.get('no-such-rule'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.requestId).toMatch(/^fake-req-\d+$/);
    expect(ends.at(-1)).toMatchObject({ status: 404, requestId: error.requestId, error });
  });

  it('a 200 whose body does not match carries its request ID', async () => {
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      maxRetries: 0,
      fetch: failingFirst(
        1,
        () => new Response('{"list":5}', { headers: { 'x-request-id': 'req-bad-shape' } }),
      ),
    });
    const error = await caught(client.tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.requestId).toBe('req-bad-shape');
  });

  it('a refused connection is a ConnectionError with the system code as a field', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const client = new IdGovClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: { token: 'static-token' },
      maxRetries: 0,
    });
    const error = await caught(client.tasks.search());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.requestId).toBeUndefined();
  });
});

describe('webhook sender hooks', () => {
  const tenant = new FakeTenant();
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('name the event ID in every event of a delivery, its retries included', async () => {
    const listener = tenant.addListener();
    let first = true;
    const events = recorder();
    const sender = new WebhookSender({
      url: listener.url,
      hmac: { secret: listener.secret },
      hooks: events.hooks,
      fetch: (input, init) => {
        if (first) {
          first = false;
          return Promise.resolve(new Response(null, { status: 503 }));
        }
        return fetch(input, init);
      },
    });
    const delivery = await sender.send({ employee_id: 'e-1' });
    expect(delivery.status).toBe('delivered');
    expect(events.names()).toEqual(['request', 'response', 'retry', 'request', 'response', 'requestEnd']);
    for (const [, event] of events.seen) expect(event).toMatchObject({ eventId: delivery.eventId });
    expect(events.of<RequestEvent>('request')[0]).toMatchObject({ idempotent: true, maxAttempts: 4 });
    expect(JSON.stringify(events.seen)).not.toContain(listener.secret);
  });
});
