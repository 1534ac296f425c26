/**
 * What a careless caller and an odd server do to the client: secrets passed where they do not
 * belong stay out of messages, hooks and loggers that fail change nothing, malformed Retry-After
 * headers do not turn into a retry storm, a failing token source is named as such and bounded by
 * the call's timeout, and a refresh ahead of expiry that keeps failing does not hammer the token
 * endpoint.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { retryAfterMs } from '../../src/core/transport/retry.ts';
import {
  ConfigurationError,
  ConnectionError,
  IdGovClient,
  type RequestEndEvent,
  type RequestEvent,
  RequestValidationError,
  type RetryEvent,
  TimeoutError,
  TokenProviderError,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';

const BASE = 'http://127.0.0.1:9';
const SEARCH = '/api/v1/search/tasks';
const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const emptyPage = () => json({ list: [], nextPageToken: '' });
const pathOf = (input: unknown) => new URL(input instanceof Request ? input.url : String(input)).pathname;
/** A client whose every request is answered with an empty page, and how many it sent. */
const counting = () => {
  let sent = 0;
  const client = new IdGovClient({
    baseUrl: BASE,
    credentials: { token: 't' },
    logLevel: 'off',
    fetch: async () => {
      sent += 1;
      return emptyPage();
    },
  });
  return { client, sent: () => sent };
};

describe('secrets a caller put in the wrong place', () => {
  it('a token string passed as the credentials is refused without quoting it', () => {
    const TOKEN = 'at_SECRET_value_123';
    for (const credentials of [TOKEN, 42]) {
      let error: unknown;
      try {
        new IdGovClient({ credentials: credentials as never, logLevel: 'off' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String(error)).toMatch(/pass \{ token: value \}/);
      expect(String(error)).not.toContain(TOKEN);
    }
  });

  it("a caller's header that cannot be sent is named, its value never quoted", async () => {
    const KEY = 'gw_key_SECRET_42';
    const { client, sent } = counting();
    const error = await caught(
      client.tasks.search({}, { headers: { 'x-trace': 'ok', 'x-gateway-key': `${KEY}\nrotated` } }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.field).toBe('headers');
    expect(error.message).toContain('headers["x-gateway-key"]');
    expect(error.message).not.toContain(KEY);
    expect(sent()).toBe(0);
  });
});

describe('hooks and loggers that fail', () => {
  it('an async hook that rejects is logged and ignored, never an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const warnings: string[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const client = new IdGovClient({
        baseUrl: BASE,
        credentials: { token: 't' },
        logger: { error: () => {}, warn: (m) => warnings.push(m), info: () => {}, debug: () => {} },
        hooks: {
          response: async () => {
            throw new Error('metrics backend down');
          },
        },
        fetch: async () => emptyPage(),
      });
      await client.tasks.search({});
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
    expect(warnings.join('\n')).toMatch(/'response' hook threw \(metrics backend down\); ignored/);
  });

  it('a logger that throws does not fail an answered request', async () => {
    const throwing = () => {
      throw new Error('log shipper down');
    };
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 't' },
      logLevel: 'debug',
      logger: { error: throwing, warn: throwing, info: throwing, debug: throwing },
      fetch: async () => emptyPage(),
    });
    await expect(client.tasks.search({})).resolves.toMatchObject({ list: [] });
  });

  it('an unknown logLevel or a logger without its methods is refused, naming the field', () => {
    const make = (options: object) => () =>
      new IdGovClient({ baseUrl: BASE, credentials: { token: 't' }, ...options });
    expect(make({ logLevel: 'DEBUG' })).toThrow(/logLevel must be one of off, error, warn, info, debug/);
    expect(make({ logLevel: 'toString' })).toThrow(ConfigurationError);
    expect(make({ logger: { error: () => {} } })).toThrow(/logger\.warn is not a function/);
    expect(make({ logLevel: 'debug', logger: console })).not.toThrow();
  });
});

describe('Retry-After in odd forms', () => {
  const firstDelay = async (value: string) => {
    const retries: RetryEvent[] = [];
    let calls = 0;
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 't' },
      logLevel: 'off',
      hooks: { retry: (event) => retries.push(event) },
      fetch: async () => {
        calls += 1;
        return calls === 1
          ? new Response('{}', { status: 429, headers: { 'retry-after': value } })
          : emptyPage();
      },
    });
    await client.tasks.search({});
    return retries[0]?.delayMs;
  };

  it.each(['-1', '5, 5', 'soon'])('ignores a malformed %j: the backoff waits, not zero', async (value) => {
    expect(await firstDelay(value)).toBeGreaterThanOrEqual(250);
  });

  it('reads an HTTP date in each of its forms, a one-digit day too (as Java writes it)', () => {
    const now = Date.parse('2030-12-31T23:59:30Z');
    for (const date of [
      'Wed, 01 Jan 2031 00:00:00 GMT',
      'Wed, 1 Jan 2031 00:00:00 GMT',
      'Wednesday, 01-Jan-31 00:00:00 GMT',
      'Wed Jan  1 00:00:00 2031',
    ]) {
      expect(retryAfterMs(new Headers({ 'retry-after': date }), now), date).toBe(30_000);
    }
  });

  it('reads fractional seconds and an HTTP date', async () => {
    expect(await firstDelay('0.3')).toBe(300);
    const soon = new Date(Date.now() + 2_000).toUTCString();
    const delay = await firstDelay(soon);
    expect(delay).toBeGreaterThan(500);
    expect(delay).toBeLessThanOrEqual(2_000);
  });

  it('a 401 carrying a long Retry-After keeps its own advice', async () => {
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 'a-long-static-token' },
      logLevel: 'off',
      fetch: async () => json({ message: 'token revoked' }, 401, { 'retry-after': '3600' }),
    });
    const error = await caught(client.tasks.search({}));
    expect(error.message).toMatch(/Check the credentials/);
    expect(error.message).not.toMatch(/try again later/);
  });

  it("the caller's own AbortSignal.timeout is an abort, not a retry", async () => {
    const inFlight = new Set<AbortSignal>();
    onTestFinished(() => inFlight.clear());
    const retries: RetryEvent[] = [];
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 't' },
      logLevel: 'off',
      hooks: { retry: (event) => retries.push(event) },
      fetch: (input) =>
        new Promise((_, reject) => {
          const signal = (input as Request).signal;
          // Held as a real fetch's socket holds its request: else a collection may take the whole
          // pending call, the caller's AbortSignal.timeout with it (timers hold theirs weakly).
          inFlight.add(signal);
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    });
    const error = await caught(client.tasks.search({}, { signal: AbortSignal.timeout(100) }));
    expect(error.name).toBe('AbortError');
    expect(retries).toEqual([]);
  });
});

describe('getting the token', () => {
  it('a token provider that fails is a TokenProviderError, nothing sent, and events agree', async () => {
    let sent = 0;
    const requests: RequestEvent[] = [];
    const ends: RequestEndEvent[] = [];
    const client = new IdGovClient({
      baseUrl: 'https://api.tenant.test',
      logLevel: 'off',
      credentials: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED vault.internal:8200'), { code: 'ECONNREFUSED' });
      },
      hooks: { request: (e) => requests.push(e), requestEnd: (e) => ends.push(e) },
      fetch: async () => {
        sent += 1;
        return json({});
      },
    });
    const error = await caught(client.tasks.search({}));
    expect(error).toBeInstanceOf(TokenProviderError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/token provider failed \(ECONNREFUSED\); no request was sent/);
    expect(sent).toBe(0);
    expect(requests).toEqual([]);
    expect(ends.map((e) => e.attempts)).toEqual([0]);
  });

  it("a call's timeout bounds its wait for a token that never comes (endpoint or provider)", async () => {
    const server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const viaEndpoint = new IdGovClient({
        baseUrl: url,
        credentials: { clientId: 'c', clientSecret: 's' },
        logLevel: 'off',
      });
      const viaProvider = new IdGovClient({
        baseUrl: url,
        credentials: () => new Promise<string>(() => {}), // ignores its signal too
        logLevel: 'off',
      });
      for (const client of [viaEndpoint, viaProvider]) {
        const started = performance.now();
        const error = await caught(client.tasks.search({}, { timeout: 200, maxRetries: 0 }));
        expect(error).toBeInstanceOf(TimeoutError);
        expect(error.message).toMatch(/waited 200 ms for an access token/);
        expect(performance.now() - started).toBeLessThan(2_000);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each([
    ['a timeout', () => ({ timeout: 200 })],
    ['an AbortSignal.timeout()', () => ({ signal: AbortSignal.timeout(200) })],
  ])(
    'calls giving up on a slow token endpoint (%s) do not abort the token request the next calls need',
    async (_how, giving) => {
      let tokenRequests = 0;
      let aborted = 0;
      const client = new IdGovClient({
        baseUrl: BASE,
        credentials: { clientId: 'c', clientSecret: 's' },
        logLevel: 'off',
        fetch: async (input) => {
          if (pathOf(input) !== '/auth/v1/token') return emptyPage();
          tokenRequests += 1;
          const signal = (input as Request).signal;
          const answered = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), 300);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve(false);
            });
          });
          if (!answered) {
            aborted += 1;
            throw signal.reason;
          }
          return json({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
        },
      });
      const gaveUp = await caught(client.tasks.search({}, { ...giving(), maxRetries: 0 }));
      expect(gaveUp.name).toMatch(/TimeoutError|AbortError/);
      await new Promise((resolve) => setTimeout(resolve, 150)); // the token has arrived meanwhile
      for (let i = 0; i < 3; i += 1) {
        await expect(client.tasks.search({}, { ...giving(), maxRetries: 0 })).resolves.toMatchObject({
          list: [],
        });
      }
      expect({ tokenRequests, aborted }).toEqual({ tokenRequests: 1, aborted: 0 });
    },
  );

  it('a token request every call stopped waiting for (each timed out) finishes its attempt but is not retried', async () => {
    let tokenRequests = 0;
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { clientId: 'c', clientSecret: 's' },
      logLevel: 'off',
      timeout: 300,
      maxRetries: 2,
      fetch: async (input) => {
        if (pathOf(input) !== '/auth/v1/token') return emptyPage();
        // As fetch does, nothing is sent for a request whose signal is aborted.
        const signal = (input as Request).signal;
        if (signal.aborted) throw signal.reason;
        tokenRequests += 1;
        // A token endpoint that never answers: each attempt ends at the client's timeout.
        return new Promise<Response>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    expect(await caught(client.tasks.search({}, { timeout: 100, maxRetries: 0 }))).toBeInstanceOf(
      TimeoutError,
    );
    // Time for the attempt to time out and for both retries (with their backoff), had they been made.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(tokenRequests).toBe(1);
  });

  it('a refresh ahead of expiry that fails is logged and tried again after a pause, not on every call', async () => {
    let tokenRequests = 0;
    const warnings: string[] = [];
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { clientId: 'c', clientSecret: 'super-secret-s' },
      logger: { error: () => {}, warn: (m) => warnings.push(m), info: () => {}, debug: () => {} },
      fetch: async (input) => {
        if (pathOf(input) !== '/auth/v1/token') return emptyPage();
        tokenRequests += 1;
        return tokenRequests === 1
          ? json({ access_token: 'tok1', token_type: 'Bearer', expires_in: 2 })
          : json({ error: 'invalid_client' }, 401);
      },
    });
    await client.tasks.search({});
    // Into the soft window (1.0 to 1.5 s) and held there: a loaded machine's 20 calls must not
    // reach the hard expiry, where a refresh that fails would fail the call.
    const inSoftWindow = performance.now() + 1_050;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => inSoftWindow);
    try {
      for (let i = 0; i < 20; i += 1) await client.tasks.search({});
    } finally {
      clock.mockRestore();
    }
    expect(tokenRequests).toBe(2);
    expect(
      warnings.filter((w) => /refreshing the access token before it expires failed/.test(w)),
    ).toHaveLength(1);
    expect(warnings.join('\n')).not.toContain('super-secret-s');
  });
});

describe('tracing a request that sent nothing', () => {
  it('an API call whose token could not be had still has its span, with an error status', async () => {
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import(
      '@opentelemetry/sdk-trace-base'
    );
    const { instrumentClient } = await import('../../src/otel/index.ts');
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    const client = new IdGovClient({
      baseUrl: BASE,
      logLevel: 'off',
      credentials: async () => {
        throw new Error('vault sealed');
      },
    });
    instrumentClient(client, { tracerProvider });
    await caught(client.tasks.search({}));
    const search = spans.getFinishedSpans().filter((s) => String(s.attributes['url.full']).endsWith(SEARCH));
    expect(search).toHaveLength(1);
    expect(search[0]?.attributes['error.type']).toBe('TokenProviderError');
    expect(search[0]?.status.code).toBe(2); // SpanStatusCode.ERROR
  });
});

describe('a base URL on a port fetch never sends to', () => {
  it('fails at once, not retried, saying why (fetch\'s "bad port", not its bare "fetch failed")', async () => {
    const retries: unknown[] = [];
    const client = new IdGovClient({
      baseUrl: 'http://127.0.0.1:9',
      credentials: { token: 't' },
      maxRetries: 3,
      hooks: { retry: (event) => void retries.push(event) },
    });
    const started = performance.now();
    const error = await caught(client.tasks.search());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(
      /Could not reach 127\.0\.0\.1:9 .* after 1 attempt: bad port: fetch never sends to this port/,
    );
    expect(retries).toEqual([]);
    // No backoff was waited.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('options of the wrong type', () => {
  it('null for the options, or for a signal, is taken as none: a listing pages, toArray(null) reads all', async () => {
    const { client, sent } = counting();
    expect(await client.tasks.search({}, null as never).toArray(null as never)).toEqual([]);
    expect(await client.tasks.search({}, { signal: null } as never).toArray()).toEqual([]);
    expect(sent()).toBe(2);
  });

  it.each([
    ['signal', 'x', /signal must be an AbortSignal .*got string "x"/],
    ['signal', new EventTarget(), /signal must be an AbortSignal .*got an object/],
    [
      'signal',
      Object.assign(new EventTarget(), { aborted: false }),
      /signal is an AbortSignal of another realm or a polyfill/,
    ],
    ['hooks', 5, /hooks must be an object of handlers by event name/],
    ['prefetch', 'yes', /prefetch must be true or false/],
  ] as const)('a per-call %s of %j rejects, naming it, with nothing sent', async (field, value, message) => {
    const { client, sent } = counting();
    const listing = client.tasks.search({}, { [field]: value } as never);
    const error = await caught(listing);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
    expect(sent()).toBe(0);
  });

  it('a misspelt search field is named by its own path, nested too', async () => {
    const { client, sent } = counting();
    for (const [request, field] of [
      [{ taskState: ['TASK_STATE_OPEN'] }, 'taskState'],
      [{ expandMask: { pathz: [] } }, 'expandMask.pathz'],
    ] as const) {
      const error = await caught(client.tasks.search(request as never));
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(error).toMatchObject({
        field,
        message: expect.stringContaining(`${field}: unknown field: check the spelling`),
      });
    }
    expect(sent()).toBe(0);
  });

  it.each([[5], [{}], [true], [[]]])('a baseUrl of %j is a ConfigurationError that names it', (baseUrl) => {
    expect(() => new IdGovClient({ baseUrl: baseUrl as never, credentials: { token: 't' } })).toThrow(
      ConfigurationError,
    );
    expect(() => new IdGovClient({ baseUrl: baseUrl as never, credentials: { token: 't' } })).toThrow(
      /baseUrl must be a URL string/,
    );
  });

  it('a base URL taken from the client ID names the client ID, not a baseUrl never passed', () => {
    const previous = process.env.IDGOV_BASE_URL;
    delete process.env.IDGOV_BASE_URL;
    onTestFinished(() => {
      if (previous !== undefined) process.env.IDGOV_BASE_URL = previous;
    });
    const made = (clientId: string) => () =>
      new IdGovClient({ credentials: { clientId, clientSecret: 's' }, logLevel: 'off' });
    expect(made('a@b@c.example.com/pcc')).toThrow(/the base URL taken from the host of the client ID/);
    expect(made('x@host.example.com?debug=1/pcc')).toThrow(
      /the base URL taken from the host of the client ID .*pass baseUrl/,
    );
  });
});

describe('what an odd answer is said as', () => {
  it('a redirect to another scheme names only the scheme; a Retry-After past a day is said so', async () => {
    const answers = [
      new Response(null, { status: 302, headers: { location: 'javascript:alert(1)' } }),
      json({ message: 'slow down' }, 429, { 'retry-after': `1${'0'.repeat(400)}` }),
    ];
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 'a-token-of-some-length' },
      logLevel: 'off',
      maxRetries: 0,
      fetch: async () => answers.shift() ?? emptyPage(),
    });
    const redirect = await caught(client.tasks.search());
    expect(redirect).toMatchObject({ location: 'javascript:…' });
    expect(redirect.message).not.toContain('null');
    expect(redirect.message).not.toContain('alert');
    const limited = await caught(client.tasks.search());
    expect(limited.message).toContain('asked to wait more than a day');
    expect(limited.message).not.toContain('Infinity');
  });
});

describe('a rules preview given the wrong things', () => {
  const client = new IdGovClient({
    baseUrl: BASE,
    credentials: { token: 'a-token-of-some-length' },
    logLevel: 'off',
    fetch: async () => json({ transformationRule: null }),
  });

  it.each([
    [
      { severity: 'FINDING_SEVERITY_LOW' },
      ['rule-1', ''],
      'rules.1',
      /rules\[1\] must be a non-empty string/,
    ],
    [
      { severity: 'FINDING_SEVERITY_LOW' },
      null,
      'rules',
      /rules must be an array of rule IDs or of rules \(got null\)/,
    ],
    [null, [], 'finding', /finding must be an object.*\(got null\)/],
  ])('%j with %j: a RequestValidationError naming %s', async (finding, rules, field, message) => {
    const error = await caught(client.findingRules.preview(finding as never, rules as never, null as never));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
  });
});

describe('a rule lookup answered 200 with something else', () => {
  const answering = (body: unknown) =>
    new IdGovClient({
      baseUrl: BASE,
      credentials: { token: 'a-token-of-some-length' },
      logLevel: 'off',
      maxRetries: 0,
      fetch: async () => json(body),
    });

  it.each([
    [
      { code: 5, message: 'rule not found' },
      /has no transformationRule but code, message: an error body with status 200/,
    ],
    [{ list: [1, 2] }, /has no transformationRule but list/],
  ])('%j is a ResponseValidationError, not "no such rule"', async (body, message) => {
    const error = await caught(answering(body).findingRules.get('rule-1'));
    expect(error.name).toBe('ResponseValidationError');
    expect(error.message).toMatch(message);
  });

  it('an answer that leaves the null rule out, or says null, is no such rule', async () => {
    expect(await answering({}).findingRules.get('rule-1')).toBeNull();
    expect(await answering({ transformationRule: null }).findingRules.get('rule-1')).toBeNull();
  });
});
