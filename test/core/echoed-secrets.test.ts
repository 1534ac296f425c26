/**
 * A hostile service or listener that echoes what it was sent: the client secret, the token, the
 * HMAC secret, a signature or a signed JWT must not reach an error's message, JSON, inspection or
 * raw body, whichever way the answer carries it (body, redirect path, header). Real sockets.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { APIError, IdGovClient, RedirectError, ResponseValidationError } from '../../src/index.ts';
import { generateWebhookKeyPair, WebhookSender } from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';
import { answer, type HostileHandler, type HostileServer, hostileServer } from '../helpers/hostile-server.ts';

const CLIENT_SECRET = 'cs_echoed_S3CRET_value_42';
const TOKEN = 'at_echoed_T0KEN_value_42';
const HMAC_SECRET = 'whsec_echoed_HMAC_value_42';

let servers: HostileServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
});

async function serve(handle: HostileHandler): Promise<HostileServer> {
  const server = await hostileServer(handle);
  servers.push(server);
  return server;
}

/** Every way an error can be shown or logged. */
const shown = (error: unknown) => [
  String((error as Error).message),
  JSON.stringify(error),
  inspect(error, { depth: 8, showHidden: true }),
  String((error as { rawBody?: unknown }).rawBody ?? ''),
];

function expectNone(error: unknown, secrets: readonly string[]): void {
  for (const text of shown(error)) for (const secret of secrets) expect(text).not.toContain(secret);
}

const client = (baseUrl: string) =>
  new IdGovClient({
    baseUrl,
    credentials: { clientId: 'sync@tenant.test/pcc', clientSecret: CLIENT_SECRET },
    maxRetries: 0,
    logLevel: 'off',
  });

const goodToken: HostileHandler = (_request, response) =>
  answer(response, { access_token: TOKEN, token_type: 'Bearer', expires_in: 600 });

describe('the client, against a service that echoes what it was sent', () => {
  it('a 200 of the wrong shape quoting the token: the raw body keeps no token', async () => {
    const server = await serve((request, response, seen, message) =>
      request.url === '/auth/v1/token'
        ? goodToken(request, response, seen, message)
        : answer(response, { list: 5, echo: `Bearer ${TOKEN}` }),
    );
    const error = await caught(client(server.url).tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toContain('[redacted]');
    expectNone(error, [TOKEN]);
  });

  it('a redirect whose path carries the token: the message and location keep no token', async () => {
    const server = await serve((request, response, seen, message) => {
      if (request.url === '/auth/v1/token') return goodToken(request, response, seen, message);
      response.writeHead(302, { location: `/leak/Bearer%20${TOKEN}/x` });
      response.end();
    });
    const error = await caught(client(server.url).tasks.search());
    expect(error).toBeInstanceOf(RedirectError);
    expect((error as RedirectError).location).toContain('[redacted]');
    expectNone(error, [TOKEN, encodeURIComponent(TOKEN)]);
  });

  it('a token endpoint redirect quoting the client secret in its Location header: inspection keeps none', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(302, { location: `https://elsewhere.test/?secret=${CLIENT_SECRET}` });
      response.end();
    });
    const error = await caught(client(server.url).tasks.search());
    expect(error).toBeInstanceOf(APIError);
    expectNone(error, [CLIENT_SECRET]);
  });
});

describe('the client, against a service that echoes a secret inside JSON', () => {
  // Base64 secrets hold `/`, which PHP's json_encode writes as `\/`, and non-ASCII as `\u00e9`.
  const SLASHED_SECRET = 'cs/Zm9v/YmFy+cXV4é==';
  const SLASHED_TOKEN = 'eyJhbGciOi.eyJzdWIiOi/abc+def';
  const php = (text: string) =>
    JSON.stringify(text)
      .slice(1, -1)
      .replaceAll('/', '\\/')
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const slashedClient = (baseUrl: string) =>
    new IdGovClient({
      baseUrl,
      credentials: { clientId: 'sync@tenant.test/pcc', clientSecret: SLASHED_SECRET },
      maxRetries: 0,
      logLevel: 'off',
    });

  it('a token endpoint error page quoting the client secret as PHP escapes it: no form of it is shown', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/html' });
      response.end(
        `<pre>{"client_secret":"${php(SLASHED_SECRET)}","js":${JSON.stringify(SLASHED_SECRET)}}</pre>`,
      );
    });
    const error = await caught(slashedClient(server.url).tasks.search());
    expect(error).toBeInstanceOf(APIError);
    expect(String((error as Error).message)).toContain('[redacted]');
    expectNone(error, [
      SLASHED_SECRET,
      php(SLASHED_SECRET),
      JSON.stringify(SLASHED_SECRET).slice(1, -1),
      'YmFy',
    ]);
  });

  it('a 200 of the wrong shape quoting the token with `\\/`: the raw body keeps no form of it', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/auth/v1/token')
        return answer(response, { access_token: SLASHED_TOKEN, token_type: 'Bearer', expires_in: 600 });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"list":5,"echo":"Bearer ${php(SLASHED_TOKEN)}"}`);
    });
    const error = await caught(slashedClient(server.url).tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).rawBody).toContain('[redacted]');
    expectNone(error, [SLASHED_TOKEN, php(SLASHED_TOKEN), 'eyJzdWIiOi\\/abc']);
  });

  it('an error body with `__proto__` keys: none is kept, at any depth', async () => {
    const server = await serve((request, response, seen, message) => {
      if (request.url === '/auth/v1/token') return goodToken(request, response, seen, message);
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        '{"message":"x","__proto__":{"isAdmin":true},"nested":{"__proto__":{"isAdmin":true},"a":1}}',
      );
    });
    const error = await caught(client(server.url).tasks.search());
    expect(error).toBeInstanceOf(APIError);
    const body = (error as APIError).body as Record<string, unknown>;
    expect(Object.hasOwn(body, '__proto__')).toBe(false);
    expect(Object.hasOwn(body.nested as object, '__proto__')).toBe(false);
    expect(body.nested).toEqual({ a: 1 });
    expect((Object.assign({}, body) as { isAdmin?: boolean }).isAdmin).toBeUndefined();
  });
});

describe('the webhook sender, against a listener that echoes what it was sent', () => {
  const echo: HostileHandler = (request, response) =>
    answer(
      response,
      {
        message: `refused ${request.headers.authorization ?? ''} ${request.headers['webhook-signature'] ?? ''} ${HMAC_SECRET}`,
      },
      401,
    );

  it('HMAC: neither the secret nor the signature reaches the error', async () => {
    const server = await serve(echo);
    const signatures: string[] = [];
    const listener = `${server.url}/api/v1/webhooks/incoming/l1`;
    const sender = new WebhookSender({ url: listener, hmac: { secret: HMAC_SECRET }, maxRetries: 0 });
    const error = await caught(sender.send({ a: 1 }));
    expect(error).toBeInstanceOf(APIError);
    for (const request of server.seen) signatures.push(String(request.headers['webhook-signature']));
    expect(signatures).toHaveLength(1);
    expectNone(error, [HMAC_SECRET, ...signatures]);
  });

  it('JWT: the signed token does not reach the error', async () => {
    const server = await serve(echo);
    const pair = await generateWebhookKeyPair('ES256');
    const listener = `${server.url}/api/v1/webhooks/incoming/l1`;
    const sender = new WebhookSender({
      url: listener,
      jwt: { privateKey: pair.privateKey, kid: pair.kid, subject: server.url },
      maxRetries: 0,
    });
    const error = await caught(sender.send({ a: 1 }));
    expect(error).toBeInstanceOf(APIError);
    const jwt = String(server.seen[0]?.headers.authorization).replace(/^Bearer /, '');
    expect(jwt.split('.')).toHaveLength(3);
    expectNone(error, [jwt]);
  });
});
