import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  PermissionDeniedError,
} from '../../src/index.ts';
import { createHmacSecret, FakeTenant } from '../../src/testing/index.ts';
import { inCidr } from '../../src/webhooks/cidr.ts';
import {
  generateWebhookKeyPair,
  MemoryEventIdStore,
  verifyWebhook,
  WebhookSender,
} from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';
import { useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const BASE = 'https://tenant.test';
const URL_ = `${BASE}/api/v1/webhooks/incoming/lst-1`;
const secret = createHmacSecret();

interface Seen {
  headers: Record<string, string>;
  body: string;
}

function listener(answers: Array<(seen: Seen) => Response>) {
  const seen: Seen[] = [];
  server.use(
    http.post(URL_, async ({ request }) => {
      const entry = { headers: Object.fromEntries(request.headers), body: await request.text() };
      seen.push(entry);
      return (answers[Math.min(seen.length, answers.length) - 1] ?? (() => new HttpResponse(null)))(entry);
    }),
  );
  return seen;
}

describe('delivery', () => {
  it('delivers on 200 and reports one attempt', async () => {
    const seen = listener([() => new HttpResponse(null, { status: 200 })]);
    const result = await new WebhookSender({ url: URL_, hmac: { secret } }).send({ a: 1 });
    expect(result).toMatchObject({ status: 'delivered', attempts: 1, httpStatus: 200 });
    expect(seen[0]?.headers['webhook-event-id']).toBe(result.eventId);
    expect(seen[0]?.body).toBe('{"a":1}');
  });

  it('retries with the same event ID and body, and a fresh timestamp and signature each attempt', async () => {
    const seen = listener([
      () => new HttpResponse(null, { status: 503, headers: { 'retry-after': '1' } }),
      () => new HttpResponse(null),
    ]);
    const result = await new WebhookSender({ url: URL_, hmac: { secret } }).send({ a: 1 });
    expect(result).toMatchObject({ status: 'delivered', attempts: 2 });
    const [first, second] = seen as [Seen, Seen];
    expect(second.headers['webhook-event-id']).toBe(first.headers['webhook-event-id']);
    expect(second.body).toBe(first.body);
    expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThan(
      Number(first.headers['webhook-timestamp']),
    );
    expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    for (const attempt of seen) {
      const verdict = await verifyWebhook(
        { method: 'POST', url: URL_, headers: attempt.headers, body: attempt.body },
        { hmacSecret: secret, baseUrl: BASE },
      );
      expect(verdict.status).toBe(200);
    }
  });

  it('retries a dropped connection', async () => {
    const seen = listener([() => HttpResponse.error(), () => new HttpResponse(null)]);
    expect(await new WebhookSender({ url: URL_, hmac: { secret } }).send({})).toMatchObject({ attempts: 2 });
    expect(seen).toHaveLength(2);
  });

  // A listener that processes each request (verifyWebhook with a store), and answers the first late.
  function processingListener(firstAnswerDelayMs = 0) {
    const store = new MemoryEventIdStore();
    let requests = 0;
    server.use(
      http.post(URL_, async ({ request }) => {
        requests += 1;
        const verdict = await verifyWebhook(
          { method: 'POST', url: request.url, headers: request.headers, body: await request.text() },
          { hmacSecret: secret, baseUrl: BASE, seen: store },
        );
        if (requests === 1 && firstAnswerDelayMs) await delay(firstAnswerDelayMs);
        return new HttpResponse(verdict.reason, { status: verdict.status });
      }),
    );
  }

  it('reports a 409 as an already delivered duplicate, not a failure, accepted before this send', async () => {
    processingListener();
    const sender = new WebhookSender({ url: URL_, hmac: { secret } });
    const first = await sender.send({ a: 1 });
    const again = await sender.send({ a: 1 }, { eventId: first.eventId });
    expect([first.status, again.status]).toEqual(['delivered', 'duplicate']);
    expect(again.httpStatus).toBe(409);
    expect(first.history).toEqual([{ at: expect.any(Number), httpStatus: 200, error: undefined }]);
    expect(again).toMatchObject({ earlierAttemptUnanswered: false, history: [{ httpStatus: 409 }] });
  });

  it('tells a 409 after its own timed-out attempt from a duplicate delivered by someone else', async () => {
    processingListener(2_000); // accepted at once, answered after the sender's timeout
    const sender = new WebhookSender({ url: URL_, hmac: { secret }, timeout: 300 });
    const result = await sender.send({ a: 1 });
    expect(result).toMatchObject({
      status: 'duplicate',
      attempts: 2,
      earlierAttemptUnanswered: true,
      history: [{ error: 'timeout' }, { httpStatus: 409 }],
    });
    expect(result.history[1]?.at).toBeGreaterThanOrEqual(result.history[0]?.at ?? Infinity);
  });

  it('keeps each history whole when one sender delivers one event twice at once', async () => {
    processingListener();
    const sender = new WebhookSender({ url: URL_, hmac: { secret } });
    const eventId = crypto.randomUUID();
    const results = await Promise.all([
      sender.send({ a: 1 }, { eventId }),
      sender.send({ a: 1 }, { eventId }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['delivered', 'duplicate']);
    for (const result of results) {
      expect(result.history).toEqual([expect.objectContaining({ httpStatus: result.httpStatus })]);
    }
  });

  it('records a dropped connection and a 503 in the history', async () => {
    listener([
      () => HttpResponse.error(),
      () => new HttpResponse(null, { status: 503 }),
      () => new HttpResponse(null),
    ]);
    const result = await new WebhookSender({ url: URL_, hmac: { secret } }).send({});
    expect(result).toMatchObject({
      status: 'delivered',
      earlierAttemptUnanswered: true,
      history: [{ error: 'network' }, { httpStatus: 503 }, { httpStatus: 200 }],
    });
  });

  for (const [status, type, pattern] of [
    [400, BadRequestError, /timestamp more than 5 minutes/],
    [401, AuthenticationError, /HMAC secret .*clock/],
    [403, PermissionDeniedError, /allowed CIDRs/],
  ] as const) {
    it(`raises ${type.name} on ${status}, naming the likely cause, without retrying`, async () => {
      const seen = listener([() => new HttpResponse('nope', { status })]);
      const error = await caught(new WebhookSender({ url: URL_, hmac: { secret } }).send({}));
      expect(error).toBeInstanceOf(type);
      expect(error.message).toMatch(pattern);
      expect(error.message).not.toMatch(/kid|JWKS|JWT/);
      expect(seen).toHaveLength(1);
    });
  }

  it('gives a JWT sender JWT advice on 401, not HMAC advice', async () => {
    listener([() => new HttpResponse('nope', { status: 401 })]);
    const pair = await generateWebhookKeyPair('ES256');
    const sender = new WebhookSender({ url: URL_, jwt: { privateKey: pair.privateKey, kid: pair.kid } });
    const error = await caught(sender.send({}));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toMatch(/kid .*JWKS.*clock/);
    expect(error.message).not.toMatch(/HMAC|secret/);
  });

  it('does not follow redirects', async () => {
    const seen = listener([
      () => new HttpResponse(null, { status: 307, headers: { location: `${BASE}/elsewhere` } }),
    ]);
    const error = await caught(new WebhookSender({ url: URL_, hmac: { secret } }).send({}));
    expect(error.status).toBe(307);
    expect(error.message).toMatch(/redirects are not followed/);
    expect(seen).toHaveLength(1);
  });
});

describe('verifier', () => {
  const sender = new WebhookSender({ url: URL_, hmac: { secret } });
  const verify = async (
    change: (signed: { headers: Record<string, string | undefined>; body: string }) => void = () => {},
    options: Partial<Parameters<typeof verifyWebhook>[1]> = {},
    remoteAddress = '127.0.0.1',
  ) => {
    const signed = await sender.sign({ a: 1 });
    const request = {
      headers: { ...signed.headers } as Record<string, string | undefined>,
      body: signed.body,
    };
    change(request);
    return verifyWebhook(
      { method: 'POST', url: URL_, remoteAddress, ...request },
      { hmacSecret: secret, baseUrl: BASE, ...options },
    );
  };

  it('answers 400 for each malformed request, naming the problem', async () => {
    const cases: Array<[(r: { headers: Record<string, string | undefined>; body: string }) => void, RegExp]> =
      [
        [(r) => delete r.headers['Webhook-Timestamp'], /missing Webhook-Timestamp/],
        [(r) => delete r.headers['Webhook-Event-Id'], /missing Webhook-Event-Id/],
        [(r) => (r.headers['Content-Type'] = 'text/plain'), /application\/json/],
        [(r) => (r.headers['Webhook-Timestamp'] = String(Math.floor(Date.now() / 1000) - 301)), /5 minutes/],
        [(r) => (r.headers['Webhook-Event-Id'] = 'not-a-uuid'), /UUID v4/],
        [(r) => (r.body = '{"a":'), /not valid JSON/],
      ];
    for (const [change, reason] of cases) {
      expect(await verify(change)).toMatchObject({ status: 400, reason: expect.stringMatching(reason) });
    }
    expect(await verify(undefined, { maxBodyBytes: 4 })).toMatchObject({ status: 400, reason: /size limit/ });
  });

  it('answers 401 for a missing signature', async () => {
    expect(await verify((r) => delete r.headers['Webhook-Signature'])).toMatchObject({ status: 401 });
  });

  it('answers 403 outside the allowed CIDRs, after authentication', async () => {
    expect((await verify(undefined, { allowedCidrs: ['10.0.0.0/8'] })).status).toBe(403);
    expect((await verify(undefined, { allowedCidrs: ['10.0.0.0/8', '127.0.0.0/8'] })).status).toBe(200);
    expect(
      (await verify((r) => (r.headers['Webhook-Signature'] = 'x'), { allowedCidrs: ['10.0.0.0/8'] })).status,
    ).toBe(401);
  });

  it('answers 409 for an event ID seen on the same listener within 7 days, and accepts it after', async () => {
    const store = new MemoryEventIdStore();
    const signed = await sender.sign({ a: 1 });
    const now = Date.now();
    const at = (ms: number, url = URL_) =>
      verifyWebhook(
        { method: 'POST', url, headers: signed.headers, body: signed.body },
        { hmacSecret: secret, baseUrl: BASE, seen: store, now: ms },
      );
    expect((await at(now)).status).toBe(200);
    expect((await at(now + 1000)).status).toBe(409);
    const sevenDays = 7 * 24 * 3600 * 1000;
    expect(store.claim('lst-1\nother', now + sevenDays)).toBe(true); // sweeps the expired record
    expect(store.claim(`lst-1\n${signed.eventId}`, now + sevenDays)).toBe(true);
  });
});

describe('verifier configuration', () => {
  const request = { method: 'POST', url: URL_, headers: {}, body: '{}' };
  it('refuses an empty HMAC secret, both methods or neither, up front, as a ConfigurationError', async () => {
    for (const options of [
      { hmacSecret: '' },
      { hmacSecret: secret, jwks: { keys: [] } },
      {},
      { jwks: 'https://keys.example/jwks.json' as unknown as URL },
    ]) {
      const error = await caught(verifyWebhook(request, { baseUrl: BASE, ...options }));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).not.toContain(secret);
    }
    const binary = await caught(
      verifyWebhook(request, { baseUrl: BASE, hmacSecret: new TextEncoder().encode(secret) as never }),
    );
    expect(binary).toBeInstanceOf(ConfigurationError);
    expect(binary.message).toMatch(/hmacSecret is binary \(a Buffer\?\): pass the secret as the text/);
  });

  it('builds the remote key set of a JWKS URL once, so its keys are fetched once', async () => {
    const pair = await generateWebhookKeyPair('EdDSA');
    let fetches = 0;
    const keys = createServer((_request, response) => {
      fetches += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(pair.jwks));
    });
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
    try {
      const jwksUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks.json`;
      const sender = new WebhookSender({ url: URL_, jwt: { privateKey: pair.privateKey, kid: pair.kid } });
      for (let i = 0; i < 3; i++) {
        const signed = await sender.sign({ i });
        const verdict = await verifyWebhook(
          { method: 'POST', url: URL_, headers: signed.headers, body: signed.body },
          { jwks: new URL(jwksUrl), baseUrl: BASE },
        );
        expect(verdict.status).toBe(200);
      }
      expect(fetches).toBe(1);
    } finally {
      keys.closeAllConnections();
      await new Promise((resolve) => keys.close(resolve));
    }
  });
});

describe('listener routing', () => {
  it('answers 405 to a method other than POST, case-sensitively (post is another method)', async () => {
    const signed = await new WebhookSender({ url: URL_, hmac: { secret } }).sign({ a: 1 });
    for (const method of ['post', 'Post', 'GET']) {
      const verdict = await verifyWebhook(
        { method, url: URL_, headers: signed.headers, body: signed.body },
        { hmacSecret: secret, baseUrl: BASE },
      );
      expect(verdict).toMatchObject({ status: 405, reason: expect.stringMatching(/method must be POST/) });
    }
    const tenant = new FakeTenant();
    const listener = tenant.addListener();
    const answer = await tenant.handle(new Request(listener.url, { method: 'PUT', body: '{}' }));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(405);
    expect((answer as Response).headers.get('allow')).toBe('POST');
  });

  it('refuses a listener with an empty id, or an id already registered', () => {
    const tenant = new FakeTenant();
    expect(() => tenant.addListener({ id: '' })).toThrow(ConfigurationError);
    const first = tenant.addListener({ id: 'l1' });
    expect(() => tenant.addListener({ id: 'l1', secret: 'other' })).toThrow(/listener "l1" exists already/);
    expect(tenant.listener('l1')).toBe(first);
  });
});

describe('CIDR matching', () => {
  it.each([
    ['10.1.2.3', '10.0.0.0/8', true],
    ['11.1.2.3', '10.0.0.0/8', false],
    ['192.168.1.7', '192.168.1.0/30', false],
    ['192.168.1.3', '192.168.1.0/30', true],
    ['::ffff:127.0.0.1', '127.0.0.0/8', true],
    ['127.0.0.1', '127.0.0.1', true],
    ['2001:db8::1', '2001:db8::/32', true],
    ['2001:db9::1', '2001:db8::/32', false],
    ['::1', '::1/128', true],
    ['fe80::1%eth0', 'fe80::/10', true],
    ['not-an-ip', '0.0.0.0/0', false],
    ['1.2.3.4', '0.0.0.0/0', true],
    ['2001:db8::1', '2001:db8::/128', false],
    // Typos match nothing (Number() would read '', ' ', '-0' as 0: everything).
    ['203.0.113.9', '10.0.0.0/', false],
    ['203.0.113.9', '10.0.0.0/ ', false],
    ['203.0.113.9', '10.0.0.0/-0', false],
    ['10.0.0.1', '10.0.0.0/0x8', false],
    ['10.0.0.1', '10.0.0.0/8e0', false],
    ['10.0.0.1', '10.0.0.0/33', false],
    ['10.0.0.1', '10.0.0.0/8/8', false],
    ['::1', '::/129', false],
  ])('%s in %s is %s', (address, cidr, expected) => {
    expect(inCidr(address, cidr)).toBe(expected);
  });

  it('refuses a malformed allowed CIDR up front, naming it, in verifyWebhook and FakeTenant', async () => {
    const signed = await new WebhookSender({ url: URL_, hmac: { secret } }).sign({ a: 1 });
    const request = { method: 'POST', url: URL_, headers: signed.headers, body: signed.body };
    for (const cidr of ['10.0.0.0/', '10.0.0.0/ ', '10.0.0.0/-0', '10.0.0.0/8e0', 'bogus', '::/129']) {
      const allowedCidrs = ['192.0.2.0/24', cidr];
      const error = await caught(
        verifyWebhook(
          { ...request, remoteAddress: '203.0.113.9' },
          { hmacSecret: secret, baseUrl: BASE, allowedCidrs },
        ),
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toContain(`allowedCidrs[1] is not a CIDR (got ${JSON.stringify(cidr)})`);
      expect(() => new FakeTenant().addListener({ allowedCidrs })).toThrow(ConfigurationError);
    }
    expect(() => new FakeTenant().addListener({ allowedCidrs: ['10.0.0.0/8', '::1'] })).not.toThrow();
  });
});
