import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigurationError, RequestValidationError } from '../../src/index.ts';
import {
  MemoryOutboxStore,
  type OutboxAttempt,
  type OutboxState,
  type OutboxStore,
  WebhookOutbox,
  type WebhookOutboxOptions,
} from '../../src/outbox/index.ts';
import { CUT_SHORT_ATTEMPT } from '../../src/outbox/unrecorded-attempt.ts';
import { createHmacSecret } from '../../src/testing/index.ts';
import { verifyWebhook, WebhookSender } from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';
import { useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const BASE = 'https://tenant.test';
const URL_ = `${BASE}/api/v1/webhooks/incoming/lst-1`;
const secret = createHmacSecret();
const SCHEDULE = [1_000, 5_000, 60_000];

interface Seen {
  eventId: string;
  body: string;
  verdict: number;
}

/** A listener answering from `answers` in turn (the last repeats); every request is verified first. */
function listener(answers: Array<() => Response | Promise<Response>>) {
  const seen: Seen[] = [];
  server.use(
    http.post(URL_, async ({ request }) => {
      const body = await request.text();
      const { status } = await verifyWebhook(
        { method: 'POST', url: request.url, headers: request.headers, body },
        { hmacSecret: secret, baseUrl: BASE },
      );
      seen.push({ eventId: request.headers.get('webhook-event-id') ?? '', body, verdict: status });
      const answer = answers[Math.min(seen.length, answers.length) - 1];
      return answer ? answer() : new HttpResponse(null);
    }),
  );
  return seen;
}

const ok = () => new HttpResponse(null, { status: 200 });
const status =
  (code: number, body: string | null = null, headers: Record<string, string> = {}) =>
  () =>
    new HttpResponse(body, { status: code, headers });

function setup(options: Partial<WebhookOutboxOptions> = {}) {
  const clock = { now: 1_000_000 };
  const attempts: OutboxAttempt[] = [];
  const store = new MemoryOutboxStore();
  const sender = new WebhookSender({ url: URL_, hmac: { secret }, maxBodyBytes: 200 });
  const outbox = new WebhookOutbox({
    sender,
    store,
    retrySchedule: SCHEDULE,
    now: () => clock.now,
    onAttempt: (a) => attempts.push(a),
    ...options,
  });
  return { clock, attempts, store, outbox };
}

describe('enqueue', () => {
  it('stores the serialised body, the listener and a fixed event ID, and nothing is sent yet', async () => {
    const seen = listener([ok]);
    const { outbox } = setup();
    const { eventId, duplicate } = await outbox.enqueue({ employee_id: '12345', status: 'terminated' });
    expect(duplicate).toBe(false);
    expect(await outbox.get(eventId)).toMatchObject({
      listener: URL_,
      body: '{"employee_id":"12345","status":"terminated"}',
      state: 'pending',
      attempts: 0,
    });
    expect(seen).toEqual([]);
  });

  it('refuses a payload the sender would refuse, and stores nothing', async () => {
    listener([ok]);
    const { outbox } = setup();
    for (const bad of [{ n: 10n }, { x: 'y'.repeat(300) }, 'not json', { f: () => 1 }]) {
      expect(await caught(outbox.enqueue(bad))).toBeInstanceOf(RequestValidationError);
    }
    // A forgotten await: the payload is a Promise, which would be stored and sent as {}.
    const forgotten = caught(outbox.enqueue((async () => ({ employee_id: '12345' }))()));
    expect(await forgotten).toMatchObject({
      field: 'payload',
      message: expect.stringMatching(/forgotten await/),
    });
    const error = await caught(outbox.enqueue({}, { eventId: 'C9C09F18-C399-41FD-AE5B-124D4025F3A9' }));
    expect(error.field).toBe('eventId');
    expect(await outbox.counts()).toEqual({ pending: 0, delivered: 0, dead: 0, expired: 0 });
  });

  it('takes a repeated enqueue of the same event as a no-op, and refuses the same ID with another body', async () => {
    listener([ok]);
    const { outbox } = setup();
    const eventId = crypto.randomUUID();
    await outbox.enqueue({ a: 1 }, { eventId });
    expect(await outbox.enqueue('{"a":1}', { eventId })).toEqual({ eventId, duplicate: true });
    const error = await caught(outbox.enqueue({ a: 2 }, { eventId }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toMatch(/already in the outbox with another body/);
    expect(await outbox.counts()).toMatchObject({ pending: 1 });
  });

  it('never shows the key a listener URL keeps in its query when it refuses an event ID of another listener', async () => {
    listener([ok]);
    const store = new MemoryOutboxStore();
    const keyed = new WebhookOutbox({
      sender: new WebhookSender({ url: `${URL_}?code=gateway-key-123`, hmac: { secret } }),
      store,
    });
    const plain = new WebhookOutbox({ sender: new WebhookSender({ url: URL_, hmac: { secret } }), store });
    const { eventId } = await keyed.enqueue({ a: 1 });
    for (const error of [
      await caught(plain.enqueue({ a: 1 }, { eventId })),
      await caught(plain.retry(eventId)),
    ]) {
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(error.message).toContain(URL_);
      expect(error.message).not.toContain('gateway-key-123');
    }
  });

  it('refuses an event ID already stored for another listener of the same store', async () => {
    listener([ok]);
    const { outbox, store } = setup();
    const other = new WebhookOutbox({
      sender: new WebhookSender({ url: `${BASE}/api/v1/webhooks/incoming/lst-2`, hmac: { secret } }),
      store,
    });
    const { eventId } = await outbox.enqueue({ a: 1 });
    expect((await caught(other.enqueue({ a: 1 }, { eventId }))).message).toMatch(/for another listener/);
    expect((await caught(other.retry(eventId))).message).toMatch(/belongs to another listener/);
  });
});

describe('delivery', () => {
  it('delivers with the stored event ID and the exact stored bytes; 200 and 409 both count as delivered', async () => {
    const seen = listener([ok, status(409)]);
    const { outbox, attempts } = setup();
    const first = await outbox.enqueue({ b: 'ü', a: [1, 2] });
    const second = await outbox.enqueue({ c: 3 });
    expect(await outbox.drain()).toEqual({ attempts: 2, delivered: 2, retried: 0, dead: 0, expired: 0 });
    expect(seen.map((s) => [s.eventId, s.body, s.verdict])).toEqual([
      [first.eventId, '{"b":"ü","a":[1,2]}', 200],
      [second.eventId, '{"c":3}', 200],
    ]);
    expect(attempts.map((a) => [a.outcome, a.answer?.status, a.recorded])).toEqual([
      ['delivered', 200, true],
      ['delivered', 409, true],
    ]);
    expect(await outbox.counts()).toEqual({ pending: 0, delivered: 2, dead: 0, expired: 0 });
  });

  it('retries 5xx, 429 and dropped connections on the schedule, with the same event ID, until delivered', async () => {
    const seen = listener([status(503), () => HttpResponse.error(), status(429), ok]);
    const { outbox, clock, attempts } = setup();
    const { eventId } = await outbox.enqueue({ a: 1 });
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      await outbox.drain();
      const event = await outbox.get(eventId);
      if (event?.state !== 'pending') break;
      waits.push(event.nextAttemptAt - clock.now);
      expect(await outbox.drain()).toMatchObject({ attempts: 0 }); // not due yet
      clock.now = event.nextAttemptAt;
    }
    expect(waits).toEqual([1_000, 5_000, 60_000]);
    expect(new Set(seen.map((s) => s.eventId))).toEqual(new Set([eventId]));
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'retry', 'delivered']);
    expect(attempts[1]?.answer?.error).toMatch(/ConnectionError/);
    expect(await outbox.get(eventId)).toMatchObject({ state: 'delivered', attempts: 4 });
  });

  it('counts a 200 whose answer is over maxResponseBytes as delivered, not dead', async () => {
    listener([status(200, 'x'.repeat(2_000))]);
    const { outbox } = setup({
      sender: new WebhookSender({ url: URL_, hmac: { secret }, maxResponseBytes: 1_000 }),
    });
    const { eventId } = await outbox.enqueue({ a: 1 });
    expect(await outbox.drain()).toMatchObject({ attempts: 1, delivered: 1, dead: 0 });
    expect(await outbox.get(eventId)).toMatchObject({ state: 'delivered', lastAnswer: { status: 200 } });
  });

  it('attempts each event at most once per drain(), so a retry wait of 0 cannot make it spin', async () => {
    const seen = listener([status(503)]);
    const { outbox } = setup({ retrySchedule: [0] });
    await outbox.enqueue({ a: 1 });
    await outbox.enqueue({ a: 2 });
    // The signal only ends a drain that would otherwise never return.
    const summary = await outbox.drain({ signal: AbortSignal.timeout(2_000) });
    expect(summary).toMatchObject({ attempts: 1, retried: 1 }); // ordered: the head holds back the second
    expect(seen).toHaveLength(1);
    expect(await outbox.drain()).toMatchObject({ attempts: 1, retried: 1 }); // due again: the next call
  });

  it('honours Retry-After, but no longer than the longest wait of the schedule', async () => {
    listener([status(429, null, { 'retry-after': '30' }), status(503, null, { 'retry-after': '999999' })]);
    const { outbox, clock } = setup();
    const { eventId } = await outbox.enqueue({});
    await outbox.drain();
    expect((await outbox.get(eventId))?.nextAttemptAt).toBe(clock.now + 30_000);
    clock.now += 30_000;
    await outbox.drain();
    expect((await outbox.get(eventId))?.nextAttemptAt).toBe(clock.now + 60_000);
  });

  for (const code of [400, 401, 403, 404, 422, 307]) {
    it(`moves an event refused with ${code} to the dead letters, keeping the answer but never the secret`, async () => {
      const body = JSON.stringify({ message: `refused ${'x'.repeat(2_000)}` });
      const seen = listener([status(code, body, { location: `${BASE}/elsewhere` })]);
      const { outbox } = setup();
      const { eventId } = await outbox.enqueue({ a: 1 });
      expect(await outbox.drain()).toMatchObject({ attempts: 1, dead: 1 });
      expect(seen).toHaveLength(1);
      const [dead] = await outbox.deadLetters();
      expect(dead).toMatchObject({ eventId, state: 'dead', lastAnswer: { status: code } });
      expect(dead?.lastAnswer?.body).toMatch(/^\{"message":"refused x+…$/);
      expect(dead?.lastAnswer?.body?.length).toBeLessThanOrEqual(1_001);
      expect(JSON.stringify(dead)).not.toContain(secret);
      expect(await outbox.drain()).toMatchObject({ attempts: 0 });
    });
  }

  it('pages dead letters: deadLetters({ limit, after }) reads on from the last of the page before', async () => {
    listener([status(400), status(400), status(400)]);
    const { outbox } = setup();
    const ids: string[] = [];
    for (const a of [1, 2, 3]) ids.push((await outbox.enqueue({ a })).eventId);
    expect(await outbox.drain()).toMatchObject({ dead: 3 });
    const first = await outbox.deadLetters({ limit: 2 });
    expect(first.map((event) => event.eventId)).toEqual(ids.slice(0, 2));
    const next = await outbox.deadLetters({ limit: 2, after: first.at(-1)?.eventId });
    expect(next.map((event) => event.eventId)).toEqual(ids.slice(2));
    // A store written before `after` hands back the first page: said, rather than paged for ever.
    const store = new MemoryOutboxStore();
    const listenerUrl = `${BASE}/api/v1/webhooks/incoming/lst-old`;
    const eventId = ids[0] as string;
    await store.add({ eventId, listener: listenerUrl, body: '{}', enqueuedAt: 1, expiresAt: 9e15 });
    await store.claim({
      listener: listenerUrl,
      now: 2,
      leaseMs: 60_000,
      limit: 1,
      ordered: false,
      leaseToken: 't',
    });
    await store.complete(eventId, 't', 3, { state: 'dead', answer: { status: 400 } });
    const earlier: OutboxStore = Object.assign(Object.create(store), {
      list: (listener: string, state: OutboxState, limit: number) => store.list(listener, state, limit),
    });
    const old = new WebhookOutbox({
      sender: new WebhookSender({ url: listenerUrl, hmac: { secret: 's' } }),
      store: earlier,
    });
    await expect(old.deadLetters({ after: eventId })).rejects.toThrow(
      /deadLetters: the store's list\(\) ignores after; give it the after parameter/,
    );
    await expect(outbox.deadLetters({ after: 7 as unknown as string })).rejects.toThrow(
      /deadLetters: after must be the last event ID of the page before/,
    );
  });

  it('sends a dead letter again on retry(), with its original event ID', async () => {
    const seen = listener([status(401), ok]);
    const { outbox } = setup();
    const { eventId } = await outbox.enqueue({ a: 1 });
    await outbox.drain();
    await outbox.retry(eventId);
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(seen.map((s) => s.eventId)).toEqual([eventId, eventId]);
    expect((await caught(outbox.retry(eventId))).message).toMatch(/was delivered/);
    expect((await caught(outbox.retry(crypto.randomUUID()))).message).toMatch(/not in the outbox/);
  });

  it('retry() of an event an attempt is in flight for says to wait for it, not that it expired (a new event would run the automation twice)', async () => {
    let answer!: () => void;
    const fetch = async () => {
      await new Promise<void>((resolve) => {
        answer = resolve;
      });
      return new Response('{}', { status: 200 });
    };
    const outbox = new WebhookOutbox({
      sender: new WebhookSender({ url: URL_, hmac: { secret }, fetch }),
      store: new MemoryOutboxStore(),
      logLevel: 'off',
    });
    const { eventId } = await outbox.enqueue({ a: 1 });
    const draining = outbox.drain();
    while (!answer) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await caught(outbox.retry(eventId));
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused.message).toMatch(
      /has an attempt in flight .*try again once the attempt ends, or, if that attempt's worker died, once its lease runs out \(idgov outbox status shows when\)/,
    );
    expect(refused.message).not.toMatch(/expired|new event/);
    answer();
    expect(await draining).toMatchObject({ delivered: 1 });
  });

  it('never sends past the idempotency window: a retry that would fall after it expires the event', async () => {
    const seen = listener([status(503)]);
    const { outbox, clock, attempts } = setup({ expireAfterMs: 3_000 });
    const { eventId } = await outbox.enqueue({ a: 1 });
    await outbox.drain(); // next attempt at +1 s
    clock.now += 1_000;
    await outbox.drain(); // next would be at +5 s, past the 3 s window
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'expired']);
    expect(await outbox.get(eventId)).toMatchObject({ state: 'expired', lastAnswer: { status: 503 } });
    expect((await caught(outbox.retry(eventId))).message).toMatch(/expired.*new event/);
    clock.now += 10_000;
    await outbox.drain();
    expect(seen).toHaveLength(2);
  });

  it('marks expired events once at the start and at the end of a short drain, not before every claim', async () => {
    listener([ok]);
    const { outbox, clock, store } = setup({ expireAfterMs: 3_000 });
    let expires = 0;
    const expire = store.expire.bind(store);
    store.expire = (...args) => {
      expires += 1;
      return expire(...args);
    };
    for (let i = 0; i < 5; i++) await outbox.enqueue({ i });
    await outbox.enqueue({ late: true });
    // The last event's window ends while the drain runs: the drain's end marks it, and counts it.
    let sent = 0;
    outbox.hooks.on('attempt', () => {
      if (++sent === 5) clock.now += 3_000;
    });
    const summary = await outbox.drain();
    expect(summary).toMatchObject({ delivered: 5, expired: 1 });
    expect(expires).toBe(2);
    expect(await outbox.counts()).toMatchObject({ delivered: 5, expired: 1, pending: 0 });
  });

  it('expires, unsent, an event whose window ended while nothing drained', async () => {
    const seen = listener([ok]);
    const { outbox, clock } = setup({ expireAfterMs: 3_000 });
    await outbox.enqueue({ a: 1 });
    clock.now += 3_000;
    expect(await outbox.drain()).toMatchObject({ attempts: 0 });
    expect(await outbox.counts()).toMatchObject({ expired: 1, pending: 0 });
    expect(seen).toEqual([]);
  });

  it('keeps enqueue order per listener: a waiting event holds back the later ones', async () => {
    const seen = listener([status(503), ok]);
    const { outbox, clock } = setup();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await outbox.enqueue({ i })).eventId);
    expect(await outbox.drain()).toMatchObject({ attempts: 1, retried: 1 });
    clock.now += 1_000;
    expect(await outbox.drain()).toMatchObject({ delivered: 3 });
    expect(seen.map((s) => s.eventId)).toEqual([ids[0], ids[0], ids[1], ids[2]]);
  });

  it('with concurrency above 1, lets later events past one waiting to retry', async () => {
    const seen = listener([status(503), ok]);
    const { outbox } = setup({ concurrency: 4 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await outbox.enqueue({ i })).eventId);
    expect(await outbox.drain()).toMatchObject({ attempts: 3, delivered: 2, retried: 1 });
    expect(new Set(seen.map((s) => s.eventId))).toEqual(new Set(ids));
  });

  it('with concurrency above 1, one slow answer holds its own slot only: the events claimed with it and after it go on', async () => {
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return ok();
    };
    const seen = listener([slow, ok]);
    const { outbox, attempts } = setup({ concurrency: 4 });
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push((await outbox.enqueue({ i })).eventId);
    expect(await outbox.drain()).toMatchObject({ attempts: 12, delivered: 12 });
    // The first event the listener heard is the slow one: every other was delivered while it was in flight.
    expect(attempts.map((a) => a.eventId).at(-1)).toBe(seen[0]?.eventId);
    expect(new Set(attempts.map((a) => a.eventId))).toEqual(new Set(ids));
  });

  it('a sender that cannot be used (a private key that does not import) fails the drain and buries nothing', async () => {
    const seen = listener([ok]);
    const store = new MemoryOutboxStore();
    // Well-formed, so the sender takes it; (0, 0) is no point of the curve, so it never imports.
    const zeros = 'A'.repeat(43);
    const broken = { kty: 'EC', crv: 'P-256', x: zeros, y: zeros, d: zeros };
    const outbox = new WebhookOutbox({
      sender: new WebhookSender({ url: URL_, jwt: { privateKey: broken, kid: 'k1' } }),
      store,
      concurrency: 2,
    });
    for (let i = 0; i < 3; i++) await outbox.enqueue({ i });
    const error = await caught(outbox.drain());
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/jwt\.privateKey cannot be used/);
    expect(await outbox.counts()).toEqual({ pending: 3, delivered: 0, dead: 0, expired: 0 });
    expect(await outbox.deadLetters()).toEqual([]);
    expect(seen).toEqual([]);
    for (const event of await store.list(URL_, 'pending', 10)) expect(event.attempts).toBe(0);
  });

  it('a drain that fails (an unusable sender, a store down) rejects only once the attempts in flight ended', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // One event fails at once with a setup error; the other takes 600 ms and is delivered.
    const sender = {
      url: URL_,
      serialize: (payload: unknown) => JSON.stringify(payload),
      send: async (body: string) => {
        if (body.includes('fail')) throw new ConfigurationError('the key does not import');
        await sleep(600);
        return { httpStatus: 200 };
      },
    } as unknown as WebhookSender;
    const attempts: OutboxAttempt[] = [];
    const outbox = new WebhookOutbox({
      sender,
      store: new MemoryOutboxStore(),
      concurrency: 2,
      onAttempt: (a) => attempts.push(a),
    });
    await outbox.enqueue({ fail: 1 });
    const slow = await outbox.enqueue({ slow: 1 });
    expect(await caught(outbox.drain())).toBeInstanceOf(ConfigurationError);
    expect(attempts.map((a) => [a.eventId, a.outcome])).toEqual([[slow.eventId, 'delivered']]);

    // A claim that fails while an attempt is in flight: the drain waits for it too.
    const store = new MemoryOutboxStore();
    let claims = 0;
    const claim = store.claim.bind(store);
    store.claim = async (options) => {
      claims += 1;
      if (claims > 1) throw new Error('database down');
      return claim(options);
    };
    const reported: OutboxAttempt[] = [];
    const second = new WebhookOutbox({ sender, store, concurrency: 4, onAttempt: (a) => reported.push(a) });
    const late = await second.enqueue({ slow: 2 });
    expect((await caught(second.drain())).message).toBe('database down');
    expect(reported.map((a) => [a.eventId, a.outcome])).toEqual([[late.eventId, 'delivered']]);
  });

  it('an event whose outcome the store did not take is not attempted again by the same drain', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const sent: string[] = [];
    const sender = {
      url: URL_,
      serialize: (payload: unknown) => JSON.stringify(payload),
      send: async (body: string) => {
        sent.push(body);
        if (body.includes('slow')) await sleep(2_500); // keeps the drain going past the other's lease
        return { httpStatus: 200 };
      },
    } as unknown as WebhookSender;
    const store = new MemoryOutboxStore();
    const complete = store.complete.bind(store);
    store.complete = async (eventId, ...rest) => {
      const event = await store.get(eventId);
      if (event?.body.includes('unrecorded')) throw new Error('database down');
      return complete(eventId, ...rest);
    };
    const outbox = new WebhookOutbox({
      sender,
      store,
      concurrency: 2,
      leaseMs: 1_000,
      logger: { error() {}, warn() {}, info() {}, debug() {} },
    });
    await outbox.enqueue({ unrecorded: 1 });
    await outbox.enqueue({ slow: 1 });
    await outbox.drain();
    expect(sent.filter((body) => body.includes('unrecorded'))).toHaveLength(1);
  });

  it('Retry-After as a date is read against the outbox clock', async () => {
    const { outbox, clock, attempts } = setup();
    const later = new Date(clock.now + 40_000).toUTCString();
    listener([status(503, null, { 'retry-after': later }), ok]);
    const { eventId } = await outbox.enqueue({});
    await outbox.drain();
    expect((await outbox.get(eventId))?.nextAttemptAt).toBe(Math.floor(clock.now / 1000) * 1000 + 40_000);
    expect(attempts).toHaveLength(1);
  });

  it('after the clock went back, does not wait for it to catch up with a scheduled retry', async () => {
    const seen = listener([status(503), ok]);
    const { outbox, clock } = setup();
    const { eventId } = await outbox.enqueue({});
    await outbox.drain();
    clock.now -= 60 * 60_000;
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(seen.map((s) => s.eventId)).toEqual([eventId, eventId]);
  });

  it('when a lease runs out mid-attempt, the next worker delivers and the late answer is not recorded over it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const seen = listener([
      async () => {
        arrived();
        await held;
        return new HttpResponse(null, { status: 503 });
      },
      status(409),
    ]);
    const a = setup();
    const b = new WebhookOutbox({
      sender: new WebhookSender({ url: URL_, hmac: { secret } }),
      store: a.store,
      now: () => a.clock.now,
      onAttempt: (report) => a.attempts.push(report),
    });
    const { eventId } = await a.outbox.enqueue({ a: 1 });
    const slow = a.outbox.drain();
    await inFlight;
    expect(await b.drain()).toMatchObject({ attempts: 0 }); // a's lease holds
    a.clock.now += 5 * 60_000; // ... and now it has run out
    expect(await b.drain()).toMatchObject({ delivered: 1 });
    release();
    await slow;
    // b counted a's attempt as it took the lease over: the listener saw both.
    expect(a.attempts.map((r) => [r.outcome, r.attempt, r.answer?.status, r.recorded])).toEqual([
      ['delivered', 2, 409, true],
      ['retry', 1, 503, false],
    ]);
    expect(await a.outbox.get(eventId)).toMatchObject({ state: 'delivered', attempts: 2 });
    expect(seen.map((s) => s.eventId)).toEqual([eventId, eventId]);
  });

  it('purges delivered events older than a date, and keeps the rest', async () => {
    listener([ok, status(400)]);
    const { outbox, clock } = setup();
    await outbox.enqueue({ a: 1 });
    await outbox.enqueue({ a: 2 });
    await outbox.drain();
    expect(await outbox.purgeDelivered(new Date(clock.now))).toBe(0);
    expect(await outbox.purgeDelivered(clock.now + 1)).toBe(1);
    expect(await outbox.counts()).toEqual({ pending: 0, delivered: 0, dead: 1, expired: 0 });
  });

  it('purges dead events once their cause is known; a pending one never, a store without purgeFinished says so', async () => {
    listener([ok, status(400)]);
    const { outbox, clock, store } = setup();
    await outbox.enqueue({ a: 1 });
    await outbox.enqueue({ a: 2 });
    await outbox.drain();
    expect(await outbox.purgeFinished('dead', clock.now + 1)).toBe(1);
    expect(await outbox.counts()).toEqual({ pending: 0, delivered: 1, dead: 0, expired: 0 });
    await expect(outbox.purgeFinished('pending' as never, clock.now)).rejects.toThrow(
      /state must be delivered, dead, expired \(got pending\)/,
    );
    // A store of a user's own, written before purgeFinished: delivered events still purge.
    const older = new Proxy(store, {
      get: (target, key) => {
        if (key === 'purgeFinished') return undefined;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const sender = new WebhookSender({ url: URL_, hmac: { secret } });
    const old = new WebhookOutbox({ sender, store: older, now: () => clock.now });
    await expect(old.purgeFinished('dead', clock.now + 1)).rejects.toThrow(
      /implement OutboxStore\.purgeFinished/,
    );
    expect(await old.purgeDelivered(clock.now + 1)).toBe(1);
  });

  it('logs and survives an onAttempt callback that throws', async () => {
    listener([ok]);
    const lines: string[] = [];
    const logger = { error: (m: string) => lines.push(m), warn() {}, info() {}, debug() {} };
    const { outbox } = setup({
      logger,
      logLevel: 'error',
      onAttempt: () => {
        throw new Error('metrics down');
      },
    });
    await outbox.enqueue({});
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(lines).toEqual([expect.stringMatching(/onAttempt threw: metrics down$/)]);
  });
});

describe('start and stop', () => {
  it('delivers in the background, and stop() ends a retry wait at once', async () => {
    const seen = listener([status(503)]);
    const { outbox, attempts } = setup({
      retrySchedule: [3_600_000],
      now: Date.now,
      pollIntervalMs: 3_600_000,
    });
    outbox.start();
    outbox.start(); // a second start is a no-op
    await outbox.enqueue({ a: 1 });
    await expect.poll(() => attempts.length).toBe(1);
    await outbox.stop(); // the loop waits an hour for its next poll; stop must not
    expect(seen).toHaveLength(1);
    expect(await outbox.counts()).toMatchObject({ pending: 1 });
  });

  it('start() right after a stop() that was not awaited starts again', async () => {
    listener([ok]);
    const { outbox, attempts } = setup({ now: Date.now, pollIntervalMs: 3_600_000 });
    outbox.start();
    const stopping = outbox.stop();
    outbox.start();
    await stopping;
    const { eventId } = await outbox.enqueue({ a: 1 });
    await expect.poll(() => attempts.map((a) => a.outcome)).toEqual(['delivered']);
    await outbox.stop();
    expect(await outbox.get(eventId)).toMatchObject({ state: 'delivered' });
  });

  it('stop() abandons an attempt in flight and releases its event, due again at once, the attempt counted', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    listener([
      async () => {
        arrived();
        await new Promise((resolve) => setTimeout(resolve, 60_000));
        return new HttpResponse(null);
      },
      ok,
    ]);
    const { outbox, attempts } = setup({ now: Date.now, pollIntervalMs: 3_600_000 });
    const { eventId } = await outbox.enqueue({});
    outbox.start();
    await inFlight;
    await outbox.stop();
    expect(attempts.map((a) => [a.outcome, a.recorded])).toEqual([['released', true]]);
    // Its request reached the listener: the attempt counts, and says why it has no answer.
    expect(await outbox.get(eventId)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastAnswer: { error: CUT_SHORT_ATTEMPT },
    });
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(await outbox.get(eventId)).toMatchObject({ state: 'delivered', attempts: 2 });
  });
});

describe('options', () => {
  const sender = new WebhookSender({ url: URL_, hmac: { secret } });
  const store = new MemoryOutboxStore();
  for (const [options, pattern] of [
    [{ expireAfterMs: 8 * 24 * 3_600_000 }, /at most 7 days/],
    [{ leaseMs: 500 }, /leaseMs must be at least 1,000/],
    [{ retrySchedule: [] }, /non-empty list/],
    [{ retrySchedule: [1, -5] }, /non-empty list/],
    [{ concurrency: 0 }, /concurrency must be a positive/],
    // Past 2^31 - 1 ms a timer fires at once: a poll would spin, and every attempt would be refused.
    [{ pollIntervalMs: 3e9 }, /pollIntervalMs must be a positive integer no larger than 2147483647/],
    [{ attemptTimeoutMs: 3e9 }, /attemptTimeoutMs must be a positive integer no larger than 2147483647/],
    [{ leaseMs: 3e9 }, /leaseMs must be a positive integer no larger than 2147483647/],
  ] as const) {
    it(`refuses ${JSON.stringify(options)}`, () => {
      expect(() => new WebhookOutbox({ sender, store, ...options })).toThrow(pattern);
      expect(() => new WebhookOutbox({ sender, store, ...options })).toThrow(ConfigurationError);
    });
  }
});

it('a clock of fractional ms (performance.timeOrigin + performance.now()) delivers on SQLite, and one that gives no time is refused by name', async () => {
  const { SqliteOutboxStore } = await import('../../src/outbox/sqlite-store.ts');
  const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-clock-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  let sends = 0;
  const fetch = async () => {
    sends += 1;
    return new Response('{}', { status: 200 });
  };
  const outbox = (now: () => number) =>
    new WebhookOutbox({
      sender: new WebhookSender({
        url: 'https://acme.example.com/api/v1/webhooks/incoming/l1',
        hmac: { secret: createHmacSecret() },
        fetch,
      }),
      store: new SqliteOutboxStore({ path: join(dir, 'outbox.db') }),
      now,
      logLevel: 'off',
    });
  const precise = outbox(() => performance.timeOrigin + performance.now());
  const { eventId } = await precise.enqueue({ n: 1 });
  expect(await precise.drain()).toMatchObject({ delivered: 1, dead: 0 });
  expect(sends).toBe(1);
  expect(await precise.get(eventId)).toMatchObject({ state: 'delivered' });
  const broken = outbox(() => Number.NaN);
  const refused = await caught(broken.enqueue({ n: 2 }));
  expect(refused).toBeInstanceOf(ConfigurationError);
  expect(refused.message).toMatch(/now\(\) must return Unix ms, like Date.now\(\) \(got NaN\)/);
});
