/**
 * The client against hostile servers on loopback (real sockets, no mocks): redirects, tokens with
 * line breaks, truncated token answers, endless empty pages, 50 MB bodies, rate-limit headers.
 * Every test checks that no secret reaches an error (message, JSON, inspection) or a log line,
 * and afterEach checks that no timer or socket is left behind.
 */
import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { inspect, promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PagePromise } from '../../src/core/paging/page-promise.ts';
import {
  AbortError,
  AuthenticationError,
  ConfigurationError,
  type Credentials,
  IdGovClient,
  InternalServerError,
  type Page,
  PaginationError,
  type PagingOptions,
  RateLimitError,
  RedirectError,
  RequestValidationError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { expectNoHandlesLeft, type Handles, handles } from '../helpers/handles.ts';
import {
  answer,
  type HostileHandler,
  type HostileServer,
  hostileServer,
  recordingLogger,
} from '../helpers/hostile-server.ts';

const run = promisify(execFile);
const CLIENT_ID = 'sync@tenant.test/pcc';
const SECRET = 'cs_hostile_S3CRET_value';
const TOKEN = 'at_hostile_T0KEN_value';
const SECRETS = [SECRET, TOKEN, encodeURIComponent(SECRET)];
const TOKEN_PATH = '/auth/v1/token';
const SEARCH_PATH = '/api/v1/search/tasks';

let servers: HostileServer[] = [];
const { logger, lines } = recordingLogger();
let baseline: Handles;

beforeEach(() => {
  servers = [];
  lines.length = 0;
  baseline = handles();
});

afterEach(async () => {
  for (const server of servers) await server.close();
  // The client must hold no timer (a retry backoff, an empty-page wait, a timeout) or socket of its own.
  await expectNoHandlesLeft(baseline);
});

async function serve(handle: HostileHandler): Promise<HostileServer> {
  const server = await hostileServer(handle);
  servers.push(server);
  return server;
}

function client(baseUrl: string, options: Partial<ConstructorParameters<typeof IdGovClient>[0]> = {}) {
  return new IdGovClient({
    baseUrl,
    credentials: { clientId: CLIENT_ID, clientSecret: SECRET } as Credentials,
    maxRetries: 0,
    timeout: 5_000,
    logger,
    logLevel: 'debug',
    ...options,
  });
}

/** No secret in the error (message, JSON, inspection, cause chain) or in any log line. */
function expectNoSecret(error: unknown, extra: readonly string[] = []): void {
  const outputs = [
    String((error as Error)?.message),
    JSON.stringify(error),
    inspect(error, { depth: 8, showHidden: true }),
    ...lines,
  ];
  for (const secret of [...SECRETS, ...extra]) {
    for (const output of outputs) expect(output).not.toContain(secret);
  }
}

/** A token endpoint answer with a good token. */
function goodToken(response: ServerResponse): void {
  answer(response, { access_token: TOKEN, token_type: 'Bearer', expires_in: 600 });
}

const emptyLastPage = { list: [], nextPageToken: '' };

describe('redirects are never followed; the secret stays home', () => {
  for (const status of [307, 308, 301, 302, 303]) {
    it(`a ${status} from the token endpoint to another origin`, async () => {
      const elsewhere = await serve((_request, response) => goodToken(response));
      const tenant = await serve((_request, response) =>
        answer(response, '', status, { location: `${elsewhere.url}/steal?code=xyz` }),
      );
      const error = await caught(client(tenant.url).tasks.search());
      expect(error).toBeInstanceOf(RedirectError);
      expect(error.status).toBe(status);
      expect(error.location).toBe(`${elsewhere.url}/steal`);
      expect(error.message).toContain(`redirect to ${elsewhere.url}/steal, not followed`);
      expect(error.message).not.toContain('code=xyz');
      expect(elsewhere.seen).toEqual([]);
      expect(tenant.seen.map((r) => r.url)).toEqual([TOKEN_PATH]);
      expectNoSecret(error);
    });
  }

  it('a same-origin 307 from the token endpoint is refused too (documented decision)', async () => {
    const tenant = await serve((request, response) =>
      request.url === TOKEN_PATH
        ? answer(response, '', 307, { location: '/auth/v1/token2' })
        : goodToken(response),
    );
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.location).toBe(`${tenant.url}/auth/v1/token2`);
    expect(tenant.seen).toHaveLength(1);
    expectNoSecret(error);
  });

  it('an API call redirected elsewhere: the token never leaves', async () => {
    const elsewhere = await serve((_request, response) => answer(response, emptyLastPage));
    const tenant = await serve((request, response) =>
      request.url === TOKEN_PATH
        ? goodToken(response)
        : answer(response, '', 308, { location: `${elsewhere.url}${SEARCH_PATH}` }),
    );
    const error = await caught(client(tenant.url, { maxRetries: 2 }).tasks.search());
    expect(error).toBeInstanceOf(RedirectError);
    expect(error.message).toMatch(/^@idgov\/sdk: 308 from POST \/api\/v1\/search\/tasks: redirect to/);
    expect(elsewhere.seen).toEqual([]);
    expect(tenant.seen.map((r) => r.url)).toEqual([TOKEN_PATH, SEARCH_PATH]); // not retried
    expectNoSecret(error);
  });
});

describe('tokens that cannot be sent in a header are refused unsent', () => {
  for (const [name, bad] of [
    ['CR LF', `${TOKEN}\r\nX-Injected: 1`],
    ['LF', `${TOKEN}\nX`],
    ['NUL', `${TOKEN}\u0000`],
  ] as const) {
    it(`a token endpoint answer with ${name}: AuthenticationError, no API call`, async () => {
      const tenant = await serve((request, response) =>
        request.url === TOKEN_PATH
          ? answer(response, { access_token: bad, expires_in: 600 })
          : answer(response, emptyLastPage),
      );
      const error = await caught(client(tenant.url).tasks.search());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.message).toMatch(/token endpoint answered with an access_token that contains/);
      expect(tenant.seen.map((r) => r.url)).toEqual([TOKEN_PATH]);
      expectNoSecret(error);
    });

    it(`a user's own token with ${name}: ConfigurationError at construction`, () => {
      const error = (() => {
        try {
          new IdGovClient({ baseUrl: 'https://tenant.test', credentials: { token: bad } });
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/credentials.token contains/);
      expectNoSecret(error);
    });
  }

  it("a token provider's answer with a line break: ConfigurationError, nothing sent", async () => {
    const tenant = await serve((_request, response) => answer(response, emptyLastPage));
    const error = await caught(
      client(tenant.url, { credentials: async () => `${TOKEN}\r\n` }).tasks.search(),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(tenant.seen).toEqual([]);
    expectNoSecret(error);
  });
});

describe('token endpoint answers that fail to parse keep no part of the body', () => {
  for (const [name, body] of [
    ['truncated', `{"access_token":"${TOKEN}`],
    ['a key spelt with a JSON escape', `{"acc\\u0065ss_token":"${TOKEN}","token_type":5}`],
    ['a token under an unknown key', `{"token":"${TOKEN}"}`],
  ] as const) {
    it(name, async () => {
      const tenant = await serve((_request, response) => answer(response, body));
      const error = await caught(client(tenant.url).tasks.search());
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error.rawBody).toMatch(/^\[redacted: token endpoint answer of \d+ characters\]$/);
      expectNoSecret(error);
    });
  }
});

describe('base URLs', () => {
  it.each([
    ['https://tenant.test/?api_key=hunter2', /remove the query "\?…"/],
    ['https://tenant.test/?', /remove the query "\?…"/],
    ['https://tenant.test/#hunter2', /remove the fragment "#…"/],
    [
      'https://admin:hunter2@acme example.com/?k=hunter2',
      /absolute URL .*\(got "https:\/\/…@acme example\.com\/\?…"\)/,
    ],
    ['https://tenant.test/api/v1', /remove the path "\/api\/v1"/],
    ['https://tenant.test/api/v1/', /remove the path "\/api\/v1"/],
  ])('refuses %s, naming what to remove, and quoting no secret it may hold', (baseUrl, message) => {
    expect(() => new IdGovClient({ baseUrl, credentials: { token: 't' } })).toThrow(ConfigurationError);
    expect(() => new IdGovClient({ baseUrl, credentials: { token: 't' } })).toThrow(message);
    expect(() => new IdGovClient({ baseUrl, credentials: { token: 't' } })).not.toThrow(/hunter2/);
  });

  it('accepts the origin with or without a trailing slash', () => {
    expect(new IdGovClient({ baseUrl: 'https://tenant.test/', credentials: { token: 't' } }).baseUrl).toBe(
      'https://tenant.test',
    );
  });
});

describe('paging against hostile servers: no item lost or repeated, no endless paging', () => {
  /** A search endpoint that answers `page(n, body)` for the n-th search request (1-based). */
  async function searchServer(page: (n: number, body: Record<string, unknown>) => unknown) {
    let n = 0;
    return serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      n += 1;
      answer(response, page(n, JSON.parse(request.body)));
    });
  }

  it('endless empty pages with fresh tokens stop with PaginationError after maxEmptyPages', async () => {
    const tenant = await searchServer((n) => ({ list: [], nextPageToken: `fresh-${n}` }));
    const error = await caught(
      (async () => {
        for await (const _ of client(tenant.url, { maxEmptyPages: 5 }).tasks.search()) {
          // no items ever
        }
      })(),
    );
    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/5 empty pages in a row/);
    expect(error.message).toMatch(/raise maxEmptyPages \(now 5\)/);
    expect(tenant.seen.filter((r) => r.url === SEARCH_PATH)).toHaveLength(5);
  });

  it('pages holding only nulls count as empty: the limit and the pacing apply to them too', async () => {
    const tenant = await searchServer((n) => ({ list: [null, null], nextPageToken: `fresh-${n}` }));
    const error = await caught(client(tenant.url, { maxEmptyPages: 4 }).tasks.search().toArray());
    expect(error).toBeInstanceOf(PaginationError);
    expect(error.message).toMatch(/4 empty pages in a row/);
    expect(tenant.seen.filter((r) => r.url === SEARCH_PATH)).toHaveLength(4);
  });

  it('a per-call maxEmptyPages overrides the client default', async () => {
    const tenant = await searchServer((n) => ({ list: [], nextPageToken: `fresh-${n}` }));
    const search = client(tenant.url, { maxEmptyPages: 50 }).tasks.search({}, { maxEmptyPages: 3 });
    const error = await caught(
      (async () => {
        for await (const _ of search) {
          // no items
        }
      })(),
    );
    expect(error).toBeInstanceOf(PaginationError);
    expect(tenant.seen.filter((r) => r.url === SEARCH_PATH)).toHaveLength(3);
  });

  it('items between runs of empty pages are all delivered, once, in order', async () => {
    // 4 empty pages, 1 item, 4 empty, 1 item ... : never 5 empty in a row, so it ends normally.
    const tenant = await searchServer((n) => ({
      list: n % 5 === 0 ? [{ task: { id: `t-${n}` } }] : [],
      nextPageToken: n < 30 ? `p-${n}` : '',
    }));
    const ids: unknown[] = [];
    for await (const view of client(tenant.url, { maxEmptyPages: 5 }).tasks.search()) ids.push(view.task?.id);
    expect(ids).toEqual(['t-5', 't-10', 't-15', 't-20', 't-25', 't-30']);
  });

  for (const period of [1, 2, 3]) {
    it(`a token cycle of period ${period}: every item once, then PaginationError`, async () => {
      const tenant = await searchServer((n) => ({
        list: [{ task: { id: `t-${n}` } }],
        nextPageToken: `cycle-${n % period}`,
      }));
      const ids: unknown[] = [];
      const error = await caught(
        (async () => {
          for await (const view of client(tenant.url).tasks.search()) ids.push(view.task?.id);
        })(),
      );
      expect(error).toBeInstanceOf(PaginationError);
      // The page that repeats a token is delivered; nothing after it is fetched.
      expect(ids).toEqual(Array.from({ length: period + 1 }, (_, i) => `t-${i + 1}`));
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  it('a cycle longer than the window of recent tokens is caught too', async () => {
    const period = 1100; // the last 1024 tokens are remembered; a power-of-two checkpoint catches longer cycles
    const tenant = await searchServer((n) => ({
      list: [{ task: { id: `t-${n}` } }],
      nextPageToken: `p-${n % period}`,
    }));
    const error = await caught(
      (async () => {
        for await (const _ of client(tenant.url).tasks.search()) {
          // count only
        }
      })(),
    );
    expect(error).toBeInstanceOf(PaginationError);
    expect(tenant.seen.filter((r) => r.url === SEARCH_PATH).length).toBeLessThan(4 * period);
  });

  it('remembers 200 tokens of 256 KiB in bounded memory (measured in a child process with --expose-gc)', async () => {
    const script = fileURLToPath(new URL('../fixtures/token-memory.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--expose-gc', script]);
    const [, grown = 'NaN', pages = '0'] = /grew (\d+) bytes over (\d+) pages/.exec(stdout) ?? [];
    expect(Number(pages)).toBe(201);
    // Keeping the tokens costs at least 200 * 256 KiB = 50 MiB; fingerprints cost a few KiB.
    expect(Number(grown)).toBeLessThan(16 * 1024 * 1024);
  }, 30_000);
});

describe('pacing of empty pages, on fake timers', () => {
  /** A listing of endless empty pages; records the (fake) time of each page request. */
  function endlessEmpty(options: PagingOptions, signal?: AbortSignal) {
    const requested: number[] = [];
    const response = {
      status: 200,
      headers: new Headers(),
      requestId: undefined,
      attempts: 1,
      bytes: 0,
      durationMs: 0,
    };
    const listing = new PagePromise<Page<never>, never>(
      () => ({
        startToken: undefined,
        fetchPage: async () => {
          requested.push(Date.now());
          return { data: { list: [], nextPageToken: `t-${requested.length}` }, response };
        },
      }),
      signal,
      options,
    );
    const drained = caught(
      (async () => {
        for await (const _ of listing) {
          // never an item
        }
      })(),
    );
    return { requested, drained };
  }

  it('the first 10 empty pages in a row go at once, then 100 ms doubling to 1 s', async () => {
    vi.useFakeTimers();
    try {
      const { requested, drained } = endlessEmpty({ maxEmptyPages: 16 });
      await vi.runAllTimersAsync();
      expect(await drained).toBeInstanceOf(PaginationError);
      const gaps = requested.slice(1).map((t, i) => t - (requested[i] as number));
      expect(gaps).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 200, 400, 800, 1000]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the default stops after 100 empty pages, 86.5 s into a hostile listing', async () => {
    vi.useFakeTimers();
    try {
      const started = Date.now();
      const { requested, drained } = endlessEmpty({});
      await vi.runAllTimersAsync();
      expect(await drained).toBeInstanceOf(PaginationError);
      expect(requested).toHaveLength(100);
      expect(Date.now() - started).toBe(100 + 200 + 400 + 800 + 85 * 1000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an abort during a pacing wait ends the listing at once with AbortError', async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const { requested, drained } = endlessEmpty({ maxEmptyPages: 50 }, controller.signal);
      await vi.advanceTimersByTimeAsync(150); // 11 pages at once, the 12th after 100 ms, now waiting 200 ms
      expect(requested).toHaveLength(12);
      controller.abort();
      expect(await drained).toBeInstanceOf(AbortError);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a bad maxEmptyPages rejects the listing when used, and is refused at construction', async () => {
    const tenant = await serve((_request, response) => goodToken(response));
    const search = client(tenant.url).tasks.search({}, { maxEmptyPages: 0 });
    const error = await caught(search);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe('maxEmptyPages');
    expect(tenant.seen).toEqual([]);
    expect(() => client(tenant.url, { maxEmptyPages: 0 })).toThrow(ConfigurationError);
  });
});

describe('a caller that aborts while the shared token request runs', () => {
  it('aborts the token request once no caller waits for it', async () => {
    let tokenRequestClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      tokenRequestClosed = resolve;
    });
    const tenant = await serve((request, response, _seen, message) => {
      if (request.url !== TOKEN_PATH) return answer(response, emptyLastPage);
      // Never answers; records when the client gives up on the request.
      message.socket.on('close', () => tokenRequestClosed());
    });
    const idgov = client(tenant.url, { timeout: 60_000, maxRetries: 3 });
    const one = new AbortController();
    const two = new AbortController();
    const first = caught(idgov.tasks.search({}, { signal: one.signal }));
    const second = caught(idgov.tasks.search({}, { signal: two.signal }));
    while (tenant.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    one.abort();
    expect(await first).toBeInstanceOf(AbortError);
    two.abort();
    expect(await second).toBeInstanceOf(AbortError);
    await closed; // without the fix, the request stays open for the 60 s timeout: the test times out
    expect(tenant.seen.filter((r) => r.url === TOKEN_PATH)).toHaveLength(1);
  }, 5_000);

  it('keeps the token request going while another caller still waits, and serves it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tenant = await serve(async (request, response) => {
      if (request.url !== TOKEN_PATH) return answer(response, emptyLastPage);
      await gate;
      goodToken(response);
    });
    const idgov = client(tenant.url);
    const quitter = new AbortController();
    const aborted = caught(idgov.tasks.search({}, { signal: quitter.signal }));
    // A PagePromise is lazy: then() starts it now.
    const patient = idgov.tasks.search({}, { signal: new AbortController().signal }).then((page) => page);
    while (tenant.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    quitter.abort();
    expect(await aborted).toBeInstanceOf(AbortError);
    release();
    expect((await patient).list).toEqual([]);
    expect(tenant.seen.map((r) => r.url)).toEqual([TOKEN_PATH, SEARCH_PATH]);
    expect(tenant.seen[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a new caller after everyone aborted starts a fresh token request', async () => {
    let hang = true;
    const tenant = await serve((request, response) => {
      if (request.url !== TOKEN_PATH) return answer(response, emptyLastPage);
      if (!hang) goodToken(response);
    });
    const idgov = client(tenant.url);
    const quitter = new AbortController();
    const aborted = caught(idgov.tasks.search({}, { signal: quitter.signal }));
    while (tenant.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    quitter.abort();
    expect(await aborted).toBeInstanceOf(AbortError);
    hang = false;
    expect((await idgov.tasks.search()).list).toEqual([]);
  });
});

describe('answers larger than maxResponseBytes', () => {
  const FIFTY_MB = 50 * 1024 * 1024;

  /** Streams a 50 MB JSON answer in 1 MiB chunks, with or without a Content-Length. */
  /** 50 MB of spaces (a 200 of JSON) or letters (a 500 of text), paced by the socket's drain. */
  function fiftyMegabytes(response: ServerResponse, declareLength: boolean, status = 200): void {
    response.writeHead(status, {
      'content-type': status === 200 ? 'application/json' : 'text/plain',
      ...(declareLength ? { 'content-length': String(FIFTY_MB) } : {}),
    });
    const chunk = Buffer.alloc(1024 * 1024, status === 200 ? 0x20 : 0x41);
    let sent = 0;
    const pump = () => {
      while (sent < FIFTY_MB && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    pump();
  }

  for (const declareLength of [true, false]) {
    it(`a 50 MB search answer ${declareLength ? 'with' : 'without'} Content-Length`, async () => {
      const tenant = await serve((request, response) =>
        request.url === TOKEN_PATH ? goodToken(response) : fiftyMegabytes(response, declareLength),
      );
      const error = await caught(client(tenant.url, { maxRetries: 2 }).tasks.search());
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(error.limit).toBe(32 * 1024 * 1024);
      expect(error.message).toMatch(/POST \/api\/v1\/search\/tasks is larger than maxResponseBytes/);
      expect(tenant.seen.map((r) => r.url)).toEqual([TOKEN_PATH, SEARCH_PATH]); // not retried
      expectNoSecret(error);
    });
  }

  it("a 50 MB error answer: the typed status error at once, its body dropped past ky's 10 MiB bound", async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      fiftyMegabytes(response, false, 500);
    });
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toBeUndefined();
    expectNoSecret(error);
  });

  it('a 50 MB token answer', async () => {
    const tenant = await serve((_request, response) => fiftyMegabytes(response, false));
    const error = await caught(client(tenant.url).tasks.search());
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expectNoSecret(error);
  });

  it('maxResponseBytes is exact: a body of the limit passes, one byte more fails', async () => {
    const body = JSON.stringify(emptyLastPage);
    const tenant = await serve((request, response) =>
      request.url === TOKEN_PATH ? goodToken(response) : answer(response, body),
    );
    const limited = (maxResponseBytes: number) =>
      client(tenant.url, { maxResponseBytes, credentials: { token: TOKEN } });
    expect((await limited(Buffer.byteLength(body)).tasks.search()).list).toEqual([]);
    expect(await caught(limited(Buffer.byteLength(body) - 1).tasks.search())).toBeInstanceOf(
      ResponseTooLargeError,
    );
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxResponseBytes %s at construction', (maxResponseBytes) => {
    expect(() => client('https://tenant.test', { maxResponseBytes })).toThrow(
      /maxResponseBytes must be a positive integer/,
    );
  });
});

describe('rate-limit headers without Retry-After', () => {
  const inAnHour = () => String(Math.floor(Date.now() / 1000) + 3600);
  for (const [header, value] of [
    ['RateLimit-Reset', () => '3600'],
    ['X-RateLimit-Retry-After', () => '3600'],
    ['X-RateLimit-Reset', inAnHour],
  ] as const) {
    it(`${header} beyond the 60 s cap raises RateLimitError at once`, async () => {
      const tenant = await serve((request, response) =>
        request.url === TOKEN_PATH
          ? goodToken(response)
          : answer(response, { message: 'slow down' }, 429, { [header]: value() }),
      );
      const error = await caught(client(tenant.url, { maxRetries: 3 }).tasks.search());
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.message).toMatch(/asked to wait 36\d\d s, longer than the SDK's 60 s cap/);
      expect(tenant.seen.filter((r) => r.url === SEARCH_PATH)).toHaveLength(1);
    });
  }

  it('a short X-RateLimit-Reset epoch is waited for, then retried', async () => {
    const tenant = await serve((request, response, seen) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      const searches = seen.filter((r) => r.url === SEARCH_PATH).length;
      if (searches === 1) {
        return answer(response, {}, 429, { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) });
      }
      answer(response, emptyLastPage);
    });
    expect((await client(tenant.url, { maxRetries: 1 }).tasks.search()).list).toEqual([]);
    expect(tenant.seen.filter((r) => r.url === SEARCH_PATH)).toHaveLength(2);
  });
});

describe('timeouts: every call ends within its timeout', () => {
  it.each([0, -1, 2 ** 31, 1.5])('refuses timeout %s at construction', (timeout) => {
    expect(() => client('https://tenant.test', { timeout })).toThrow(/timeout must be a positive integer/);
  });

  it('rejects a per-call timeout of 0 before sending anything', async () => {
    const tenant = await serve((_request, response) => goodToken(response));
    const error = await caught(client(tenant.url).tasks.search({}, { timeout: 0 }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe('timeout');
    expect(tenant.seen).toEqual([]);
  });

  it('a token endpoint that never answers: TimeoutError within the timeout', async () => {
    const tenant = await serve(() => {
      // never answers
    });
    const error = await caught(client(tenant.url, { timeout: 200 }).tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
    expectNoSecret(error);
  });

  it('a body that trickles forever: TimeoutError within the timeout', async () => {
    const tenant = await serve((request, response) => {
      if (request.url === TOKEN_PATH) return goodToken(response);
      response.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => response.write(' '), 20);
      response.on('close', () => clearInterval(timer));
    });
    const error = await caught(client(tenant.url, { timeout: 300 }).tasks.search());
    expect(error).toBeInstanceOf(TimeoutError);
    expectNoSecret(error);
  });
});
