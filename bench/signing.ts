/** Signing: HMAC against node:crypto, JWT against jose's SignJWT alone. */
import { createHmac } from 'node:crypto';
import { generateWebhookKeyPair, WebhookSender } from '@idgov/sdk/webhooks';
import { SignJWT } from 'jose';
import { compared, interleaved, type Result, SMALL } from './support.ts';

const URL_ = 'https://tenant.example.com/api/v1/webhooks/incoming/bench';
const BODY = JSON.stringify({ employee_id: '12345', status: 'terminated', note: 'x'.repeat(400) });
const EVENT = 'c9c09f18-c399-41fd-ae5b-124d4025f3a9';

/** Operations per second of `op`, run `batch` at a time (the async APIs are meant to overlap). */
async function perSecond(op: () => unknown, count: number, batch = 1): Promise<number> {
  for (let i = 0; i < 50; i++) await op();
  const started = performance.now();
  for (let done = 0; done < count; done += batch) await Promise.all(Array.from({ length: batch }, op));
  return count / ((performance.now() - started) / 1000);
}

export async function signingBenchmarks(): Promise<Result[]> {
  const results: Result[] = [];
  const count = SMALL ? 500 : 20_000;
  const rounds = SMALL ? 1 : 5;
  const secret = '7XBs06k94YpIMpz1oaGmxGWg3NlP6TsgEd1H4qk9jpA';
  const hmac = new WebhookSender({ url: URL_, hmac: { secret } });
  const timestamp = 1767225600;
  for (const batch of [1, 32]) {
    const r = await interleaved(
      rounds,
      () => perSecond(() => hmac.sign(BODY, { eventId: EVENT, timestamp }), count, batch),
      () =>
        perSecond(
          () => createHmac('sha256', secret).update(`${timestamp}.${EVENT}.${BODY}`).digest('base64url'),
          count,
        ),
    );
    results.push(
      compared(
        `signing: HMAC sign() ${batch === 1 ? 'one at a time' : `${batch} in flight`}`,
        r,
        'sig/s',
        '>= 0.5 of node:crypto createHmac',
        (ratio) => ratio >= 0.5,
      ),
    );
  }
  for (const alg of ['ES256', 'EdDSA'] as const) {
    const pair = await generateWebhookKeyPair(alg);
    const sender = new WebhookSender({ url: URL_, jwt: { privateKey: pair.privateKey, kid: pair.kid } });
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      sub: 'https://tenant.example.com',
      aud: URL_,
      exp: now + 300,
      jti: EVENT,
      htm: 'POST',
      htb_s256: 'x'.repeat(43),
    };
    const r = await interleaved(
      rounds,
      () => perSecond(() => sender.sign(BODY, { eventId: EVENT }), count / 4),
      () =>
        perSecond(
          () => new SignJWT(claims).setProtectedHeader({ alg, kid: pair.kid }).sign(pair.privateKey),
          count / 4,
        ),
    );
    results.push(
      compared(`signing: JWT ${alg} sign()`, r, 'sig/s', ">= 0.8 of jose's SignJWT", (ratio) => ratio >= 0.8),
    );
  }
  return results;
}
