import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { runInNewContext } from 'node:vm';
import * as fc from 'fast-check';
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, RequestValidationError } from '../../src/index.ts';
import { MemoryOutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { createHmacSecret } from '../../src/testing/index.ts';
import { bodyHash, hmacSignature, sha256Base64url } from '../../src/webhooks/hmac.ts';
import type { PrivateKeyInput } from '../../src/webhooks/index.ts';
import {
  exportWebhookPrivateKey,
  generateWebhookKeyPair,
  verifyWebhook,
  WebhookSender,
} from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';

const BASE = 'https://tenant.test';
const URL_ = `${BASE}/api/v1/webhooks/incoming/lst-1`;
const vectors = (name: string) =>
  readFileSync(new URL(`../fixtures/vectors/${name}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('reference vectors', () => {
  for (const v of vectors('hmac.jsonl')) {
    it(`reproduces the HMAC signature of ${v.name}`, async () => {
      const sender = new WebhookSender({ url: URL_, hmac: { secret: v.secret } });
      const signed = await sender.sign(v.body, { eventId: v.eventId, timestamp: Number(v.timestamp) });
      expect(signed.headers['Webhook-Signature']).toBe(v.signature);
      expect(signed.body).toBe(v.body);
      expect(new TextEncoder().encode(signed.body).byteLength).toBe(v.bodyByteLength);
      expect(signed.headers['Webhook-Timestamp']).toBe(v.timestamp);
      expect(signed.headers['Webhook-Event-Id']).toBe(v.eventId);
    });
  }
  it('reproduces every vector on the Web Crypto path too (browsers)', async () => {
    for (const v of vectors('hmac.jsonl')) {
      const body = new TextEncoder().encode(v.body);
      expect(await hmacSignature({ secret: v.secret }, v.timestamp, v.eventId, body, null)).toBe(v.signature);
    }
    for (const v of vectors('htb_s256.jsonl')) {
      expect(await sha256Base64url(new TextEncoder().encode(v.body), null)).toBe(v.htb_s256);
    }
  });
  for (const v of vectors('htb_s256.jsonl')) {
    it(`reproduces htb_s256 of ${v.name}`, async () => {
      expect(await bodyHash(new TextEncoder().encode(v.body))).toBe(v.htb_s256);
    });
  }
});

const verifyHmac = (signed: { headers: Record<string, string>; body: string }, secret: string) =>
  verifyWebhook(
    { method: 'POST', url: URL_, headers: signed.headers, body: signed.body },
    { hmacSecret: secret, baseUrl: BASE },
  );

describe('sign and verify', () => {
  it('round-trips HMAC', async () => {
    const secret = createHmacSecret();
    const signed = await new WebhookSender({ url: URL_, hmac: { secret } }).sign({ hello: 'wörld' });
    expect(signed.headers['Content-Type']).toBe('application/json');
    expect(signed.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await verifyHmac(signed, secret)).toMatchObject({ status: 200 });
    expect(await verifyHmac(signed, createHmacSecret())).toMatchObject({
      status: 401,
      reason: 'HMAC signature mismatch',
    });
  });

  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    it(`saves a generated ${alg} key as PKCS#8 PEM and as a private JWK, each of which signs again`, async () => {
      const pair = await generateWebhookKeyPair(alg);
      const pem = await exportWebhookPrivateKey(pair.privateKey, 'pkcs8');
      const jwk = await exportWebhookPrivateKey(pair.privateKey, 'jwk');
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n?$/);
      expect(jwk).toHaveProperty('d');
      for (const privateKey of [pem, jwk]) {
        const signed = await new WebhookSender({ url: URL_, jwt: { privateKey, kid: pair.kid } }).sign({
          n: 1,
        });
        const verdict = await verifyWebhook(
          { method: 'POST', url: URL_, headers: signed.headers, body: signed.body },
          { jwks: pair.jwks, baseUrl: BASE },
        );
        expect(verdict.status).toBe(200);
      }
    });
  }

  it('refuses to export a public key, a key that is not extractable or an unknown format, by rejecting', async () => {
    const pair = await generateWebhookKeyPair('ES256');
    const locked = (
      await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])
    ).privateKey;
    const publicKey = (
      await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])
    ).publicKey;
    await expect(exportWebhookPrivateKey(locked, 'pkcs8')).rejects.toThrow(/not extractable/);
    await expect(exportWebhookPrivateKey(publicKey, 'jwk')).rejects.toThrow(ConfigurationError);
    // @ts-expect-error: a format the function does not know
    await expect(exportWebhookPrivateKey(pair.privateKey, 'pem')).rejects.toThrow(/'pkcs8' or 'jwk'/);
  });

  for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
    it(`round-trips a ${alg} JWT with the key as CryptoKey, JWK and PKCS#8 PEM`, async () => {
      const pair = await generateWebhookKeyPair(alg);
      expect(pair.publicJwk).toMatchObject({ kid: pair.kid, use: 'sig', alg });
      const forms = [pair.privateKey, await exportJWK(pair.privateKey), await exportPKCS8(pair.privateKey)];
      for (const privateKey of forms) {
        const sender = new WebhookSender({ url: URL_, jwt: { privateKey, kid: pair.kid } });
        const signed = await sender.sign({ n: 1 });
        const token = signed.headers.Authorization?.replace('Bearer ', '') ?? '';
        const [header, claims] = token
          .split('.')
          .slice(0, 2)
          .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
        expect(header).toMatchObject({ alg, kid: pair.kid });
        const now = Math.floor(Date.now() / 1000);
        expect(claims).toMatchObject({
          sub: BASE,
          aud: URL_,
          jti: signed.eventId,
          htm: 'POST',
          htb_s256: await bodyHash(new TextEncoder().encode(signed.body)),
        });
        expect(claims.exp - now).toBeGreaterThan(290);
        expect(claims.exp - now).toBeLessThanOrEqual(300);
        const verdict = await verifyWebhook(
          { method: 'POST', url: URL_, headers: signed.headers, body: signed.body },
          { jwks: pair.jwks, baseUrl: BASE },
        );
        expect(verdict).toMatchObject({ status: 200 });
      }
    });
  }

  it('fails JWT verification for a kid missing from the JWKS, a tampered body and a wrong audience', async () => {
    const pair = await generateWebhookKeyPair('ES256');
    const other = await generateWebhookKeyPair('ES256');
    const signed = await new WebhookSender({
      url: URL_,
      jwt: { privateKey: pair.privateKey, kid: pair.kid },
    }).sign({ a: 1 });
    const check = (body: string, jwks = pair.jwks, url = URL_) =>
      verifyWebhook({ method: 'POST', url, headers: signed.headers, body }, { jwks, baseUrl: BASE });
    expect((await check(signed.body, other.jwks)).status).toBe(401);
    expect(await check('{"a":2}')).toMatchObject({ status: 401, reason: expect.stringMatching(/htb_s256/) });
    expect(await check(signed.body, pair.jwks, `${BASE}/api/v1/webhooks/incoming/lst-2`)).toMatchObject({
      status: 401,
      reason: expect.stringMatching(/aud/),
    });
  });

  it('sends an already serialised JSON string byte for byte', async () => {
    const text = '{ "b": 1,\n  "a": [ ] }\n';
    const signed = await new WebhookSender({ url: URL_, hmac: { secret: 's' } }).sign(text);
    expect(signed.body).toBe(text);
  });
});

describe('bad input never reaches the network', () => {
  const sender = new WebhookSender({ url: URL_, hmac: { secret: 'secret' } });
  const rejects = async (payload: unknown, pattern: RegExp, options = {}) => {
    await expect(sender.sign(payload, options)).rejects.toThrow(RequestValidationError);
    await expect(sender.sign(payload, options)).rejects.toThrow(pattern);
  };

  it('refuses a body over 65,536 bytes of UTF-8, counting bytes not characters', async () => {
    await rejects({ s: 'é'.repeat(32_768) }, /65544 bytes of UTF-8, over the listener's limit of 65536/);
    await expect(sender.sign({ s: 'x'.repeat(65_536 - 8) })).resolves.toBeDefined();
    const small = new WebhookSender({ url: URL_, hmac: { secret: 's' }, maxBodyBytes: 64_000 });
    await expect(small.sign({ s: 'x'.repeat(64_000) })).rejects.toThrow(/limit of 64000/);
  });

  it('refuses what JSON would silently change or drop', async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    await rejects({ f: () => 1 }, /payload\.f is a function/);
    await rejects({ n: 10n }, /payload\.n is a BigInt/);
    await rejects(cycle, /payload\.self refers back to itself/);
    await rejects(undefined, /payload is undefined/);
    await rejects([1, undefined], /payload\[1\] is undefined/);
    await rejects({ x: Number.NaN }, /payload\.x is NaN/);
    await rejects({ m: new Map([[1, 2]]) }, /Map or Set/);
    // What JSON sends as {} or as another shape than the data: a forgotten await above all.
    const pending = (async () => ({ a: 1 }))();
    await rejects(pending, /payload is a Promise \(a thenable\): it would be sent as \{\}\. Await it first/);
    await rejects({ context: pending }, /payload\.context is a Promise/);
    await rejects({ error: new Error('boom') }, /payload\.error is an Error, which has no field JSON sees/);
    await rejects({ pattern: /x/ }, /payload\.pattern is a RegExp/);
    await rejects({ headers: new Headers({ a: '1' }) }, /payload\.headers is a Headers/);
    await rejects({ query: new URLSearchParams('a=1') }, /payload\.query is a URLSearchParams/);
    await rejects({ ids: new WeakMap() }, /payload\.ids is a WeakMap/);
    await rejects(
      { bytes: new Uint8Array([1, 2]) },
      /payload\.bytes is a Uint8Array: it would be sent as an object of its bytes/,
    );
    await rejects(
      { when: new Date(Number.NaN) },
      /payload\.when is an invalid Date \(its time is NaN\): it would be sent as null/,
    );
    await rejects([new Date('nope')], /payload\[0\] is an invalid Date/);
    // A class with fields is sent as its fields, as JSON does; a toJSON() decides for itself.
    class Grant {
      user = 'u1';
    }
    // A class with no field set (optional ones under legacy class fields), and a plain object of
    // another realm (a vm context, jsdom): data, sent as JSON sends them.
    class Empty {}
    await expect(
      sender.sign({
        grant: new Grant(),
        at: { toJSON: () => 'x' },
        none: new Empty(),
        other: runInNewContext('({ a: 1 })'),
      }),
    ).resolves.toMatchObject({
      body: '{"grant":{"user":"u1"},"at":"x","none":{},"other":{"a":1}}',
    });
    await rejects('{not json', /not valid JSON/);
    await expect(sender.sign({ optional: undefined, when: new Date(0) })).resolves.toMatchObject({
      body: '{"when":"1970-01-01T00:00:00.000Z"}',
    });
  });

  it('refuses a lone surrogate, a toJSON() returning undefined and a payload nested too deep', async () => {
    await rejects('{"name":"\ud800"}', /lone surrogate/);
    await rejects('"\udc00x"', /lone surrogate/);
    await expect(sender.sign('{"emoji":"😀"}')).resolves.toMatchObject({ body: '{"emoji":"😀"}' });
    // An object's lone surrogate is escaped by JSON.stringify (\ud800): that text is well-formed.
    await expect(sender.sign({ name: '\ud800' })).resolves.toMatchObject({ body: '{"name":"\\ud800"}' });
    await rejects(
      { toJSON: () => undefined },
      /payload is undefined \(or its toJSON\(\) returns undefined\)/,
    );
    await rejects({ a: [{ toJSON: () => undefined }] }, /payload\.a\[0\] is undefined \(a hole, or a toJSON/);
    await rejects({ a: { toJSON: () => ({ f: () => 1 }) } }, /payload\.a\.f is a function/);
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    await rejects(deep, /nested more than 1000 levels deep/);
    await rejects(`${'['.repeat(1_001)}${']'.repeat(1_001)}`, /nested more than 1000 levels deep/);
    let ok: unknown = 1;
    for (let i = 0; i < 1_000; i++) ok = [ok];
    await expect(sender.sign(ok)).resolves.toBeDefined();
    await expect(sender.sign(`"${'['.repeat(2_000)}"`)).resolves.toBeDefined(); // brackets in a string
  });

  it('checks the very value it sends: holes, boxes, toJSON() results, getters run once', async () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    await rejects([1, , 2], /payload\[1\] is undefined \(a hole/);
    await rejects({ n: new Number(Number.NaN) }, /payload\.n is NaN/);
    const lying = new Number(1);
    lying.valueOf = () => Number.NaN; // JSON.stringify would call this and send null
    await expect(sender.sign({ n: lying })).resolves.toMatchObject({ body: '{"n":1}' });
    await rejects({ n: Object(1n) }, /payload\.n is a BigInt/);
    await rejects(
      {
        toJSON() {
          return this;
        },
        n: Number.NaN,
      },
      /payload\.n is NaN/,
    );
    // JSON.stringify never calls the toJSON of a toJSON() result: it drops it, and checks the rest.
    await rejects({ a: { toJSON: () => ({ toJSON: () => 'ok', n: Number.NaN }) } }, /payload\.a\.n is NaN/);
    await expect(
      sender.sign({ a: { toJSON: () => ({ toJSON: () => undefined, x: 1 }) } }),
    ).resolves.toMatchObject({ body: '{"a":{"x":1}}' });
    const chain = (depth: number): unknown => ({ toJSON: () => (depth ? chain(depth - 1) : 1) });
    await expect(sender.sign(chain(100_000))).resolves.toMatchObject({ body: '{}' });
    // A stateful toJSON() or getter runs once: what was checked is what is sent.
    let calls = 0;
    const once = { toJSON: () => (calls++ ? undefined : { a: 1 }) };
    expect(sender.serialize(once)).toBe('{"a":1}');
    expect(calls).toBe(1);
    let reads = 0;
    const getter = {
      get a() {
        return reads++ ? Number.NaN : 1;
      },
    };
    await expect(sender.sign(getter)).resolves.toMatchObject({ body: '{"a":1}' });
    const boom = new Error('boom');
    const throwing = {
      get a(): number {
        throw boom;
      },
    };
    const error = await caught(sender.sign(throwing));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({
      message: expect.stringMatching(/cannot be serialised: boom/),
      cause: boom,
    });
  });

  it('refuses an event ID that is not a lower-case UUID v4', async () => {
    await rejects({}, /eventId must be a UUID v4 such as/, { eventId: 'evt-1' });
    await rejects({}, /in lower case/, { eventId: 'C9C09F18-C399-41FD-AE5B-124D4025F3A9' });
    await rejects({}, /UUID v4/, { eventId: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' }); // v1
  });

  it('refuses or normalises settings that every listener would answer with 401', async () => {
    const pair = await generateWebhookKeyPair('ES256');
    const jwt = { privateKey: pair.privateKey, kid: pair.kid };
    // A fragment is not sent, but aud would carry it.
    expect(() => new WebhookSender({ url: `${URL_}#frag`, jwt })).toThrow(ConfigurationError);
    expect(() => new WebhookSender({ url: `${URL_}#`, jwt })).toThrow(/#fragment/);
    // The message names the URL without its query, where a gateway keeps its key.
    expect(() => new WebhookSender({ url: `${URL_}?code=gateway-key-9#frag`, jwt })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('gateway-key-9') }),
    );
    expect(() => new WebhookSender({ baseUrl: `${BASE}#x`, listenerId: 'l', jwt })).toThrow(
      /baseUrl has a #fragment/,
    );
    // The listener matches the kid exactly.
    expect(() => new WebhookSender({ url: URL_, jwt: { ...jwt, kid: ` ${pair.kid} ` } })).toThrow(
      /jwt\.kid has surrounding whitespace/,
    );
    const verify = (signed: { headers: Record<string, string>; body: string }, clockOffset = 0) =>
      verifyWebhook(
        { method: 'POST', url: URL_, headers: signed.headers, body: signed.body },
        { jwks: pair.jwks, baseUrl: `${BASE}/`, now: (1_767_225_600 + clockOffset) * 1000 },
      );
    // sub: the listener strips its base URL's trailing slash; so does the sender.
    const slashed = new WebhookSender({ url: URL_, jwt: { ...jwt, subject: `${BASE}//` } });
    expect(await verify(await slashed.sign({ a: 1 }, { timestamp: 1_767_225_600 }))).toMatchObject({
      status: 200,
    });
    // The longest lifetime still verifies at a listener whose clock is a minute behind.
    const longest = new WebhookSender({ url: URL_, jwt: { ...jwt, expiresIn: 540 } });
    const signed = await longest.sign({ a: 1 }, { timestamp: 1_767_225_600 });
    expect(await verify(signed, -60)).toMatchObject({ status: 200 });
  });

  it('refuses bad configuration at construction', async () => {
    const pair = await generateWebhookKeyPair('ES256');
    const make = (options: ConstructorParameters<typeof WebhookSender>[0]) => () =>
      new WebhookSender(options);
    expect(make({ url: 'http://tenant.test/api/v1/webhooks/incoming/l', hmac: { secret: 's' } })).toThrow(
      /https/,
    );
    expect(
      make({ url: 'http://127.0.0.1:8080/api/v1/webhooks/incoming/l', hmac: { secret: 's' } }),
    ).not.toThrow();
    expect(make({ url: `${BASE}/hooks/l`, hmac: { secret: 's' } })).toThrow(/listener URL/);
    expect(make({ url: URL_, hmac: { secret: '' } })).toThrow(/empty/);
    expect(make({ url: URL_, hmac: { secret: ' abc\n' } })).toThrow(/whitespace/);
    for (const expiresIn of [0, 541, 600, 601]) {
      expect(make({ url: URL_, jwt: { privateKey: pair.privateKey, kid: 'k', expiresIn } })).toThrow(
        /1 to 540/,
      );
    }
    expect(make({ url: URL_, jwt: { privateKey: pair.privateKey, kid: 'k', alg: 'RS256' } })).toThrow(
      /alg is RS256 but the private key is an ES256 key/,
    );
    expect(make({ url: URL_, jwt: { privateKey: pair.publicJwk, kid: 'k' } })).toThrow(/public JWK/);
    // Secrets and keys of the wrong type are told so, with the fix, never quoted.
    const bytes = new TextEncoder().encode('binary-secret-1234');
    expect(make({ url: URL_, hmac: { secret: bytes as never } })).toThrow(
      /hmac\.secret is binary \(a Buffer\?\)/,
    );
    expect(make({ url: URL_, hmac: { secret: 42 as never } })).toThrow(
      /hmac\.secret must be a string.*got a number/,
    );
    expect(make({ url: URL_, hmac: 'whsec-as-a-string' as never })).toThrow(
      /hmac must be an object \{ secret \} \(got a string\)/,
    );
    const pem = await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const keyOf = (privateKey: unknown) =>
      make({ url: URL_, jwt: { privateKey: privateKey as never, kid: 'k' } });
    expect(keyOf(new TextEncoder().encode(pem))).toThrow(
      /jwt\.privateKey is binary \(a Buffer\?\): pass the PEM as text/,
    );
    expect(keyOf({ keys: [pair.publicJwk] })).toThrow(/jwt\.privateKey is a JWK Set/);
    expect(keyOf({ kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ' })).toThrow(
      /symmetric key \(kty "oct", HS256\)/,
    );
    for (const wrong of [bytes, 42, 'whsec-as-a-string']) {
      try {
        make({ url: URL_, hmac: { secret: wrong as never } })();
      } catch (error) {
        expect(String(error)).not.toContain('binary-secret-1234');
        expect(String(error)).not.toContain('whsec-as-a-string');
      }
    }
    const rsa = await generateKeyPair('RS256', { extractable: true });
    expect(
      make({ url: URL_, jwt: { privateKey: await exportPKCS8(rsa.privateKey), kid: 'k', alg: 'EdDSA' } }),
    ).toThrow(/alg is EdDSA but the private key is an RS256 key/);
    expect(
      make({
        url: URL_,
        jwt: { privateKey: '-----BEGIN RSA PRIVATE KEY-----\nAA==\n-----END RSA PRIVATE KEY-----', kid: 'k' },
      }),
    ).toThrow(/convert it to PKCS#8/);
    expect(make({ baseUrl: BASE, listenerId: 'lst 1', hmac: { secret: 's' } })().url).toBe(
      `${BASE}/api/v1/webhooks/incoming/lst%201`,
    );
    expect(make({ baseUrl: BASE, listenerId: '', hmac: { secret: 's' } })).toThrow(ConfigurationError);
    expect(make({ url: URL_, hmac: { secret: 's' }, maxRetries: -1 })).toThrow(
      /maxRetries must be a non-negative integer/,
    );
    expect(make({ url: URL_, hmac: { secret: 's' }, timeout: 1.5 })).toThrow(
      /timeout must be a positive integer/,
    );
  });

  it('refuses an RSA key under 2048 bits and malformed JWKs when the sender is built, never quoting them', async () => {
    const weak = (await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 1024,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const weakJwk = await exportJWK(weak.privateKey);
    const weakPem = await exportPKCS8(weak.privateKey);
    const ec = await exportJWK((await generateWebhookKeyPair('ES256')).privateKey);
    const ed = await exportJWK((await generateWebhookKeyPair('EdDSA')).privateKey);
    const { y: _y, ...noY } = ec;
    const cases: Array<[PrivateKeyInput, RegExp]> = [
      [weak.privateKey, /1024-bit RSA key: RS256 needs at least 2048 bits/],
      [weakJwk, /1024-bit RSA key/],
      [weakPem, /1024-bit RSA key/],
      [{ ...weakJwk, n: undefined }, /malformed "n"/],
      [{ ...weakJwk, qi: undefined }, /malformed "qi"/],
      [noY, /\(ES256 JWK\) has a missing or malformed "y": expected 32 bytes/],
      [{ ...ec, x: ec.x?.slice(0, 40) }, /malformed "x"/],
      [{ ...ec, d: `${ec.d}=` }, /malformed "d"/],
      [{ ...ed, x: `${ed.x}AA` }, /\(EdDSA JWK\) has a missing or malformed "x"/],
    ];
    for (const [privateKey, pattern] of cases) {
      const error = await caught(
        Promise.resolve().then(() => new WebhookSender({ url: URL_, jwt: { privateKey, kid: 'k' } })),
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toMatch(pattern);
      for (const secret of [weakJwk.d, ec.d, ed.d, weakPem.split('\n')[1]])
        expect(error.message).not.toContain(secret);
    }
  });

  it('refuses a key only an import can fault (a point off the curve) in create(), or before anything is sent', async () => {
    const ec = await exportJWK((await generateWebhookKeyPair('ES256')).privateKey);
    const offCurve = { ...ec, y: ec.x }; // the right sizes, but not a point of P-256
    const sender = new WebhookSender({ url: URL_, jwt: { privateKey: offCurve, kid: 'k' } });
    const create = WebhookSender.create({ url: URL_, jwt: { privateKey: offCurve, kid: 'k' } });
    for (const attempt of [create, sender.sign({}), sender.send({})]) {
      const error = await caught(attempt);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error.message).toMatch(/cannot be used as an ES256 key/);
      expect(error.message).not.toContain(ec.d);
    }
  });

  it('never shows the secret or key material', async () => {
    const secret = createHmacSecret();
    const pair = await generateWebhookKeyPair('EdDSA');
    const jwk = await exportJWK(pair.privateKey);
    for (const sender of [
      new WebhookSender({ url: URL_, hmac: { secret } }),
      new WebhookSender({ url: URL_, jwt: { privateKey: jwk, kid: pair.kid } }),
    ]) {
      for (const shown of [inspect(sender, { depth: 9 }), JSON.stringify(sender), String(sender)]) {
        expect(shown).not.toContain(secret);
        expect(shown).not.toContain(jwk.d);
      }
    }
  });

  it("never shows the key a gateway keeps in the listener URL's query, the sender's or its outbox's", async () => {
    const keyed = `${URL_}?code=GATEWAY-KEY-9F3&mode=x`;
    const sender = new WebhookSender({ url: keyed, hmac: { secret: createHmacSecret() } });
    const outbox = new WebhookOutbox({ sender, store: new MemoryOutboxStore() });
    expect(JSON.parse(JSON.stringify(sender))).toMatchObject({ url: `${URL_}?code=***&mode=***` });
    expect(JSON.parse(JSON.stringify(outbox))).toEqual({ listener: `${URL_}?code=***&mode=***` });
    for (const shown of [
      inspect(sender, { depth: 9 }),
      inspect(outbox, { depth: 9 }),
      JSON.stringify({ sender, outbox }),
    ]) {
      expect(shown).toContain('code=***');
      expect(shown).not.toContain('GATEWAY-KEY-9F3');
    }
    // The URL itself is the caller's, whole.
    expect(sender.url).toBe(keyed);
  });
});

describe('properties', () => {
  const secret = 'prop-secret';
  const sender = new WebhookSender({ url: URL_, hmac: { secret } });
  // A string payload is read as already serialised JSON, so a JSON string value is passed serialised.
  const asPayload = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : value);

  it('any JSON value signs and verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        const signed = await sender.sign(asPayload(value));
        expect((await verifyHmac(signed, secret)).status).toBe(200);
      }),
      { numRuns: 150 },
    );
  });

  it('changing one byte of the body, timestamp or event ID fails verification', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom('body', 'timestamp', 'eventId'),
        fc.nat(),
        async (value, part, at) => {
          const signed = await sender.sign(asPayload(value));
          const flip = (text: string, allowed: string) => {
            const i = at % text.length;
            const replacement = allowed.split('').find((c) => c !== text[i]) ?? '0';
            return text.slice(0, i) + replacement + text.slice(i + 1);
          };
          const headers = { ...signed.headers };
          let body = signed.body;
          if (part === 'body') body = flip(body, ' 0');
          if (part === 'timestamp')
            headers['Webhook-Timestamp'] = flip(headers['Webhook-Timestamp'] ?? '', '0123456789');
          if (part === 'eventId')
            headers['Webhook-Event-Id'] = flip(headers['Webhook-Event-Id'] ?? '', '0123456789abcdef');
          const verdict = await verifyHmac({ headers, body }, secret);
          expect(verdict.status).not.toBe(200);
        },
      ),
      { numRuns: 150 },
    );
  });
});
