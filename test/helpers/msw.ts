import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ClientOptions, IdGovClient } from '../../src/index.ts';

export const BASE = 'https://tenant.test';
export const CLIENT_ID = 'sync@tenant.test/pcc';
export const CLIENT_SECRET = 'cs_live_5uper-s3cret-value';

/** An msw server for one test file; a request no handler matches fails the test. */
export function useMockServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** A token endpoint that counts its calls and hands out tok-1, tok-2, ... */
export function tokenEndpoint(expiresIn = 600) {
  const state = { calls: 0, bodies: [] as URLSearchParams[], authHeaders: [] as (string | null)[] };
  const handler = http.post(`${BASE}/auth/v1/token`, async ({ request }) => {
    state.calls += 1;
    state.authHeaders.push(request.headers.get('authorization'));
    state.bodies.push(new URLSearchParams(await request.text()));
    return HttpResponse.json({
      access_token: `tok-${state.calls}`,
      token_type: 'Bearer',
      expires_in: expiresIn,
    });
  });
  return { state, handler };
}

/** A client for the mock tenant with client credentials; fast retries are not faked, so keep them few. */
export function makeClient(options: ClientOptions = {}) {
  return new IdGovClient({
    baseUrl: BASE,
    credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    maxRetries: 2,
    ...options,
  });
}
