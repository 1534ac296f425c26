import { inspect } from 'node:util';
import { exportJWK, exportPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdGovClient, type Logger } from '../../src/index.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { generateWebhookKeyPair, WebhookSender } from '../../src/webhooks/index.ts';

describe('no secret ever leaks', () => {
  const tenant = new FakeTenant({ tasks: 30 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('from errors, debug logs, or the inspection of clients, senders and errors', async () => {
    const sentTokens = new Set<string>();
    const lines: string[] = [];
    const logger: Logger = Object.fromEntries(
      (['error', 'warn', 'info', 'debug'] as const).map((level) => [
        level,
        (message: string, data?: Record<string, unknown>) =>
          lines.push(`${message} ${JSON.stringify(data ?? {})}`),
      ]),
    ) as unknown as Logger;
    // Records every bearer token sent; can also turn the token endpoint's answer hostile.
    let hostileToken = false;
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      if (token) sentTokens.add(token);
      const response = await fetch(request);
      if (hostileToken && request.url.endsWith('/auth/v1/token')) {
        const body = (await response.json()) as { access_token: string };
        sentTokens.add(body.access_token);
        return Response.json({ access_token: body.access_token, expires_in: 'never' });
      }
      return response;
    };
    const errors: unknown[] = [];
    const capture = async (work: () => Promise<unknown>) => {
      try {
        await work();
      } catch (error) {
        errors.push(error);
      }
    };
    const options = {
      baseUrl: tenant.baseUrl,
      logger,
      logLevel: 'debug' as const,
      fetch: recordingFetch,
      maxRetries: 0,
    };
    const client = new IdGovClient({ ...options, credentials: tenant.client });
    await client.tasks.search({ pageSize: 10 });
    await capture(() => client.findingRules.get('missing-rule'));
    await capture(() => client.tasks.search({ pageToken: 'forged' }));
    await capture(async () => client.tasks.search({ pageSize: 'x' as unknown as number }));
    await capture(() => client.tasks.search({}, { timeout: 1, maxRetries: 0 }));
    const wrongSecret = new IdGovClient({
      ...options,
      credentials: { clientId: tenant.client.clientId, clientSecret: 'wrong-secret-123' },
    });
    await capture(() => wrongSecret.tasks.search());
    hostileToken = true;
    const hostile = new IdGovClient({ ...options, credentials: tenant.client });
    await capture(() => hostile.tasks.search());
    hostileToken = false;
    const staticToken = new IdGovClient({ ...options, credentials: { token: 'static-token-secret-456' } });
    await capture(() => staticToken.tasks.search());
    await capture(
      async () => new IdGovClient({ ...options, credentials: { token: 'Bearer static-token-secret-456' } }),
    );

    const listener = tenant.addListener();
    const hmac = new WebhookSender({
      url: listener.url,
      hmac: { secret: listener.secret ?? '' },
      logger,
      logLevel: 'debug',
      maxRetries: 0,
    });
    await hmac.send({ ok: true });
    const wrongHmac = new WebhookSender({
      url: listener.url,
      hmac: { secret: 'wrong-hmac-secret-789' },
      maxRetries: 0,
    });
    await capture(() => wrongHmac.send({ ok: true }));
    const pair = await generateWebhookKeyPair('RS256');
    const pem = await exportPKCS8(pair.privateKey);
    const jwk = await exportJWK(pair.privateKey);
    const jwtListener = tenant.addListener({ jwks: pair.jwks });
    const jwt = new WebhookSender({
      url: jwtListener.url,
      jwt: { privateKey: pem, kid: pair.kid },
      logger,
      logLevel: 'debug',
    });
    await jwt.send({ ok: true });
    const jwkSender = new WebhookSender({
      url: jwtListener.url,
      jwt: { privateKey: jwk, kid: 'not-in-jwks' },
      maxRetries: 0,
    });
    await capture(() => jwkSender.send({ ok: true }));
    const corrupt = pem.replace(/[A-Za-z]{40}/, 'A'.repeat(40));
    await capture(() =>
      new WebhookSender({ url: jwtListener.url, jwt: { privateKey: corrupt, kid: 'k' } }).sign({}),
    );
    await capture(
      async () =>
        new WebhookSender({ url: jwtListener.url, jwt: { privateKey: pem, kid: 'k', alg: 'ES256' } }),
    );

    const pemBody = pem.replace(/-----[A-Z ]+-----|\s/g, '');
    const secrets = [
      tenant.client.clientSecret,
      'wrong-secret-123',
      'static-token-secret-456',
      listener.secret ?? '',
      'wrong-hmac-secret-789',
      pemBody.slice(40, 100),
      String(jwk.d),
      String(jwk.p),
      ...sentTokens,
    ];
    expect(sentTokens.size).toBeGreaterThanOrEqual(3);
    expect(errors.length).toBeGreaterThanOrEqual(9);
    expect(lines.length).toBeGreaterThan(5);
    const shown = [
      ...lines,
      ...errors.flatMap((e) => [
        String(e),
        (e as Error).message,
        inspect(e, { depth: 10 }),
        JSON.stringify(e),
      ]),
      ...[client, wrongSecret, hostile, staticToken, hmac, wrongHmac, jwt, jwkSender].flatMap((o) => [
        inspect(o, { depth: 10 }),
        JSON.stringify(o),
        String(o),
      ]),
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      for (const text of shown)
        expect(text.includes(secret), `secret found in: ${text.slice(0, 300)}`).toBe(false);
    }
  });
});
