import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConfigurationError, IdGovClient } from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { BASE, CLIENT_ID, CLIENT_SECRET, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const rule = (id = 'r-1') => HttpResponse.json({ transformationRule: { id } });

/** The rule endpoint, recording the Authorization header of every call. */
function recordingRuleEndpoint() {
  const used: string[] = [];
  const handler = http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, ({ request }) => {
    used.push(request.headers.get('authorization') ?? '');
    return rule();
  });
  return { used, handler };
}

describe('client credentials', () => {
  it('sends the credentials form-encoded in the body, never in a header', async () => {
    const token = tokenEndpoint();
    const { used: seen, handler } = recordingRuleEndpoint();
    server.use(token.handler, handler);
    await makeClient().findingRules.get('r-1');
    const body = token.state.bodies[0];
    expect(Object.fromEntries(body ?? [])).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(token.state.authHeaders).toEqual([null]);
    expect(seen).toEqual(['Bearer tok-1']);
  });

  it('shares one token request among concurrent calls', async () => {
    const token = tokenEndpoint();
    server.use(
      token.handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, () => rule()),
    );
    const client = makeClient();
    await Promise.all(Array.from({ length: 50 }, () => client.findingRules.get('r-1')));
    expect(token.state.calls).toBe(1);
  });

  it('fetches a new token once the cached one nears expiry', async () => {
    const token = tokenEndpoint(1); // 1 s lifetime: used for 0.75 s
    const { used, handler } = recordingRuleEndpoint();
    server.use(token.handler, handler);
    const client = makeClient();
    await client.findingRules.get('r-1');
    await client.findingRules.get('r-1');
    await new Promise((r) => setTimeout(r, 800));
    await client.findingRules.get('r-1');
    expect(used).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
  });

  it('reckons the life of a token by the monotonic clock: a machine clock put back an hour does not keep an expired token', async () => {
    const token = tokenEndpoint(1); // 1 s lifetime: used for 0.75 s
    const { used, handler } = recordingRuleEndpoint();
    server.use(token.handler, handler);
    const client = makeClient();
    await client.findingRules.get('r-1');
    const realNow = Date.now.bind(Date);
    const putBack = vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    try {
      await new Promise((r) => setTimeout(r, 800));
      await client.findingRules.get('r-1');
    } finally {
      putBack.mockRestore();
    }
    expect(used).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('inside the soft window, returns the valid token at once while one background refresh runs', async () => {
    const token = tokenEndpoint(4); // 4 s: used freely for 2 s, refreshed in the background until 3 s
    const { used, handler } = recordingRuleEndpoint();
    server.use(token.handler, handler);
    const client = makeClient();
    await client.findingRules.get('r-1');
    await new Promise((r) => setTimeout(r, 2300));
    await Promise.all([client.findingRules.get('r-1'), client.findingRules.get('r-1')]);
    await new Promise((r) => setTimeout(r, 200));
    await client.findingRules.get('r-1');
    expect(used).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2']);
    expect(token.state.calls).toBe(2);
  });

  it('refreshes the token after a 401 and re-sends once, without looping', async () => {
    const token = tokenEndpoint();
    let apiCalls = 0;
    server.use(
      token.handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, () => {
        apiCalls += 1;
        return HttpResponse.json({ message: 'token revoked' }, { status: 401 });
      }),
    );
    const error = await caught(makeClient().findingRules.get('r-1'));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(apiCalls).toBe(2);
    expect(token.state.calls).toBe(2);
  });

  it('recovers when the first token is refused and the second accepted', async () => {
    const token = tokenEndpoint();
    server.use(
      token.handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer tok-1'
          ? new HttpResponse(null, { status: 401 })
          : rule('ok'),
      ),
    );
    expect((await makeClient().findingRules.get('r-1'))?.id).toBe('ok');
  });

  it('raises AuthenticationError with the OAuth error on a token endpoint 400 or 401, without retrying', async () => {
    for (const status of [400, 401]) {
      let calls = 0;
      server.use(
        http.post(`${BASE}/auth/v1/token`, () => {
          calls += 1;
          return HttpResponse.json(
            { error: 'invalid_client', error_description: 'unknown client' },
            { status },
          );
        }),
      );
      const error = await caught(makeClient().findingRules.get('r-1'));
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({
        status,
        oauthError: 'invalid_client',
        oauthErrorDescription: 'unknown client',
      });
      expect(error.message).toBe(
        `@idgov/sdk: ${status} from token endpoint: the client credentials were refused (invalid_client: unknown client). Check IDGOV_CLIENT_ID / IDGOV_CLIENT_SECRET (or the clientId and clientSecret options) and the base URL's tenant.`,
      );
      expect(error.message).not.toMatch(/token may be wrong/);
      expect(error.message).not.toContain(CLIENT_SECRET);
      expect(calls).toBe(1);
    }
  });

  it('sends a static token and a provided token as given', async () => {
    const { used: seen, handler } = recordingRuleEndpoint();
    server.use(handler);
    await new IdGovClient({ baseUrl: BASE, credentials: { token: 'static-1' } }).findingRules.get('r');
    let calls = 0;
    const provider = async () => `provided-${++calls}`;
    await new IdGovClient({ baseUrl: BASE, credentials: provider }).findingRules.get('r');
    expect(seen).toEqual(['Bearer static-1', 'Bearer provided-1']);
  });

  it('asks the token provider again, with forceRefresh, after a 401', async () => {
    const asked: boolean[] = [];
    server.use(
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer fresh'
          ? rule()
          : new HttpResponse(null, { status: 401 }),
      ),
    );
    const client = new IdGovClient({
      baseUrl: BASE,
      credentials: async ({ forceRefresh }) => {
        asked.push(forceRefresh);
        return forceRefresh ? 'fresh' : 'stale';
      },
    });
    await client.findingRules.get('r');
    expect(asked).toEqual([false, true]);
  });
});

describe('configuration', () => {
  it('refuses plain http except to loopback hosts', () => {
    const credentials = { token: 't' };
    expect(() => new IdGovClient({ baseUrl: 'http://tenant.example.com', credentials })).toThrow(
      /must use https.*loopback/,
    );
    expect(new IdGovClient({ baseUrl: 'http://127.0.0.1:8080/', credentials }).baseUrl).toBe(
      'http://127.0.0.1:8080',
    );
    expect(new IdGovClient({ baseUrl: 'http://[::1]:80', credentials }).baseUrl).toBe('http://[::1]');
  });

  it('rejects credentials that would quietly send nothing or the wrong thing', () => {
    const make = (credentials: ConstructorParameters<typeof IdGovClient>[0]) => () =>
      new IdGovClient(credentials);
    expect(make({ baseUrl: BASE, credentials: { token: '' } })).toThrow(ConfigurationError);
    expect(make({ baseUrl: BASE, credentials: { token: 'Bearer abc' } })).toThrow(/pass the token alone/);
    expect(make({ baseUrl: BASE, credentials: { clientId: 'x', clientSecret: ' s ' } })).toThrow(
      /whitespace/,
    );
  });

  it('reads the environment when options are absent, deriving the base URL from the client ID', () => {
    const saved = { ...process.env };
    try {
      delete process.env.IDGOV_BASE_URL;
      delete process.env.IDGOV_TOKEN;
      process.env.IDGOV_CLIENT_ID = 'sync@acme.example.com/pcc';
      process.env.IDGOV_CLIENT_SECRET = 'from-env';
      const client = new IdGovClient();
      expect(client.baseUrl).toBe('https://acme.example.com');
      expect(JSON.stringify(client)).toContain('client credentials');
      process.env.IDGOV_BASE_URL = 'https://other.example.com/';
      expect(new IdGovClient().baseUrl).toBe('https://other.example.com');
      delete process.env.IDGOV_CLIENT_ID;
      delete process.env.IDGOV_CLIENT_SECRET;
      expect(() => new IdGovClient()).toThrow(/No credentials/);
    } finally {
      process.env = saved;
    }
  });
});
