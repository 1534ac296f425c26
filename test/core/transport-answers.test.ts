/**
 * The transport against answers that go wrong after the status line: bodies that break or stall,
 * error texts that are huge, hostile or echo a secret, headers in another casing, a 304, and
 * webhook answers larger than maxResponseBytes. Real sockets on loopback.
 */
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  type Credentials,
  IdGovClient,
  RedirectError,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
} from '../../src/index.ts';
import { createHmacSecret } from '../../src/testing/index.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';
import {
  answer,
  type HostileHandler,
  type HostileServer,
  hostileServer,
  recordingLogger,
} from '../helpers/hostile-server.ts';

const SECRET = 'cs_answers_S3CRET_value_0123456789';
const TOKEN = 'at_answers_T0KEN_value_0123456789';
const TOKEN_PATH = '/auth/v1/token';
const SEARCH_PATH = '/api/v1/search/tasks';
const emptyLastPage = { list: [], nextPageToken: '' };

let servers: HostileServer[] = [];
const { logger, lines } = recordingLogger();

afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  lines.length = 0;
});

async function serve(handle: HostileHandler): Promise<HostileServer> {
  const server = await hostileServer(handle);
  servers.push(server);
  return server;
}

function client(baseUrl: string, options: Partial<ConstructorParameters<typeof IdGovClient>[0]> = {}) {
  return new IdGovClient({
    baseUrl,
    credentials: { clientId: 'sync@tenant.test/pcc', clientSecret: SECRET } as Credentials,
    maxRetries: 0,
    timeout: 5_000,
    logger,
    logLevel: 'debug',
    ...options,
  });
}

function goodToken(response: ServerResponse): void {
  answer(response, { access_token: TOKEN, token_type: 'Bearer', expires_in: 600 });
}

/** Everything a user might print of an error, and every log line. */
function printed(error: unknown): string {
  return [
    String((error as Error).message),
    JSON.stringify(error),
    inspect(error, { depth: 8, showHidden: true }),
    ...lines,
  ].join('\n');
}

const searches = (tenant: HostileServer) => tenant.seen.filter((r) => r.url === SEARCH_PATH).length;

describe('the body is read within the attempt: a break or a stall is retried, one deadline per attempt', () => {
  it('headers, then a reset socket: retried, and reported as a break, not as "could not reach"', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"list":[');
      setTimeout(() => response.destroy(), 20);
    });
    const error = await caught(client(tenant.url, { maxRetries: 2 }).tasks.search());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(
      /answered POST \/api\/v1\/search\/tasks, but the connection broke while reading the answer/,
    );
    expect(error.message).toMatch(/after 3 attempts/);
    expect(error.message).not.toMatch(/Could not reach/);
    expect(searches(tenant)).toBe(3);
  });

  it('a reset body that succeeds on the retry returns the second answer', async () => {
    const tenant = await serve((request, response, seen) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      if (seen.filter((r) => r.url === SEARCH_PATH).length > 1) return answer(response, emptyLastPage);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"list":[');
      setTimeout(() => response.destroy(), 20);
    });
    const page = await client(tenant.url, { maxRetries: 1 }).tasks.search().withResponse();
    expect(page.data.list).toEqual([]);
    expect(page.response.attempts).toBe(2);
  });

  it('a body that stalls after the headers: TimeoutError after every attempt', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"list":[');
    });
    const error = await caught(client(tenant.url, { maxRetries: 2, timeout: 300 }).tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(/after 3 attempts of 300 ms each/);
    expect(searches(tenant)).toBe(3);
  });

  it('the timeout runs from sending to the last byte: late headers leave the body no fresh timeout', async () => {
    // Headers at 300 ms, last byte at 650 ms: past a 500 ms timeout, though each phase alone is within it.
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      const late = setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"list":[],');
        const last = setTimeout(() => response.end('"nextPageToken":""}'), 350);
        response.on('close', () => clearTimeout(last));
      }, 300);
      response.on('close', () => clearTimeout(late));
    });
    const c = client(tenant.url, { timeout: 500 });
    await c.tasks.search({}, { timeout: 5_000 }); // the token, fetched outside the timed call
    const error = await caught(c.tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("an error's body counts against the same deadline: a 400 whose body stalls times out", async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(400, { 'content-type': 'application/json' });
      response.write('{"message":');
    });
    const c = client(tenant.url, { timeout: 300 });
    const error = await caught(c.tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(searches(tenant)).toBe(1);
  });

  it("the caller's abort while the body is read: AbortError at once, nothing retried", async () => {
    const controller = new AbortController();
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"list":[', () => controller.abort(new Error('user gave up')));
    });
    const error = await caught(
      client(tenant.url, { maxRetries: 2 }).tasks.search({}, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(AbortError);
    expect(error.cause).toEqual(new Error('user gave up'));
    expect(searches(tenant)).toBe(1);
  });

  it('an answer over maxResponseBytes is not retried', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      answer(response, { ...emptyLastPage, pad: 'x'.repeat(5_000) });
    });
    const error = await caught(client(tenant.url, { maxRetries: 2, maxResponseBytes: 1_000 }).tasks.search());
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(searches(tenant)).toBe(1);
  });
});

describe("the service's error text is bounded, printable and free of secrets", () => {
  it('a 1 MB message with line breaks and ANSI escapes is cut to a printable line', async () => {
    const said = `bad\n2026-11-23 INFO forged log line\u001b[2J\u202e${'x'.repeat(1_000_000)}`;
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      answer(response, { message: said }, 400);
    });
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message.length).toBeLessThan(500);
    expect(error.message).toMatch(/: bad 2026-11-23 INFO forged log line \[2J x+…\. Check the request/);
    for (const unprintable of ['\n', '\r', '\u001b', '\u202e'])
      expect(error.message).not.toContain(unprintable);
  });

  it('a token endpoint 401 echoing the client secret: redacted in message, fields, JSON and inspection', async () => {
    const tenant = await serve((_request, response) =>
      answer(
        response,
        {
          error: 'invalid_client',
          error_description: `bad secret ${SECRET} (${encodeURIComponent(SECRET)})`,
        },
        401,
      ),
    );
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toMatch(/bad secret \[redacted\] \(\[redacted\]\)/);
    expect(error.oauthErrorDescription).toBe('bad secret [redacted] ([redacted])');
    expect(printed(error)).not.toContain(SECRET);
  });

  it('a secret straddling the 200-character cut is redacted before cutting: no prefix of it shows', async () => {
    const tenant = await serve((_request, response) =>
      answer(response, { error: 'invalid_client', error_description: `${'y'.repeat(190)}${SECRET}` }, 401),
    );
    const error = await caught(client(tenant.url).tasks.search());
    expect(error.message).not.toContain(SECRET.slice(0, 8));
  });

  it('an API 401 echoing the token sent: redacted, on both the first and the re-sent attempt', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      answer(response, { message: `bad token ${request.headers.authorization}`, detail: [TOKEN] }, 401);
    });
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toMatch(/bad token Bearer \[redacted\]/);
    expect(error.body).toEqual({ message: 'bad token Bearer [redacted]', detail: ['[redacted]'] });
    expect(printed(error)).not.toContain(TOKEN);
  });
});

describe('headers in any casing merge by name', () => {
  it("a caller's Content-Type, Accept, Authorization and User-Agent: one value each, the SDK's where it must win", async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      answer(response, emptyLastPage);
    });
    await client(tenant.url).tasks.search(
      {},
      {
        headers: {
          'Content-Type': 'text/plain',
          Accept: 'text/html',
          Authorization: 'Bearer other',
          'User-Agent': 'mine/1.0',
          'X-Trace': 'abc',
        },
      },
    );
    const headers = tenant.seen.find((r) => r.url === SEARCH_PATH)?.headers ?? {};
    expect(headers['content-type']).toBe('application/json');
    expect(headers.accept).toBe('application/json');
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(headers['user-agent']).toMatch(/^mine\/1\.0 idgov-sdk-js\/\S+$/);
    expect(headers['x-trace']).toBe('abc');
  });

  it('a header value with a line break: RequestValidationError naming headers, nothing sent', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      answer(response, emptyLastPage);
    });
    const error = await caught(client(tenant.url).tasks.search({}, { headers: { 'x-a': 'one\r\ntwo' } }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe('headers');
    expect(searches(tenant)).toBe(0);
  });
});

describe('a 304', () => {
  it('is an unexpected status, not a redirect', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(304, { location: 'https://elsewhere.test/x' });
      response.end();
    });
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(RedirectError);
    expect(error.status).toBe(304);
    expect(error.message).not.toMatch(/redirect/i);
    expect(error.message).toMatch(/no conditional request/);
  });
});

describe('webhook answers are judged by status, whatever their body', () => {
  it.each([
    [200, 'delivered'],
    [409, 'duplicate'],
  ] as const)('a %i with a body larger than maxResponseBytes: %s', async (status, outcome) => {
    const listener = await serve((_request, response) =>
      answer(response, { pad: 'x'.repeat(10_000) }, status),
    );
    const sender = new WebhookSender({
      url: `${listener.url}/api/v1/webhooks/incoming/lst-1`,
      hmac: { secret: createHmacSecret() },
      maxResponseBytes: 1_000,
      maxRetries: 0,
    });
    const result = await sender.send({ a: 1 });
    expect(result).toMatchObject({ status: outcome, httpStatus: status, attempts: 1 });
  });
});
