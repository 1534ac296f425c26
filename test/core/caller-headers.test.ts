import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, IdGovClient, VERSION } from '../../src/index.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';

// A fetch that records what went on the wire, then sends it on to the fake tenant.
function recordingFetch() {
  const seen: Headers[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    seen.push(request.headers);
    return globalThis.fetch(request);
  };
  return { seen, fetch };
}

describe('userAgent and per-call headers', () => {
  const tenant = new FakeTenant({ tasks: 3 });
  const listener = tenant.addListener({ id: 'hr' });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it("puts the sender's product before the SDK's, and sends a call's headers under the signature", async () => {
    const { seen, fetch } = recordingFetch();
    const sender = new WebhookSender({
      url: listener.url,
      hmac: { secret: listener.secret },
      userAgent: 'hr-sync/2.0',
      fetch,
    });
    const result = await sender.send(
      { employee: 1 },
      { headers: { 'X-Trace-Id': 'trace-1', 'webhook-signature': 'forged', 'Content-Type': 'text/plain' } },
    );
    expect(result.status).toBe('delivered');
    expect(seen[0]?.get('user-agent')).toBe(`hr-sync/2.0 idgov-sdk-js/${VERSION}`);
    expect(seen[0]?.get('x-trace-id')).toBe('trace-1');
    expect(seen[0]?.get('webhook-signature')).not.toBe('forged');
    expect(seen[0]?.get('content-type')).toBe('application/json');
    const second = await sender.send({ employee: 2 });
    expect(second.status).toBe('delivered');
    expect(seen[1]?.get('x-trace-id')).toBeNull();
  });

  it("puts the client's product before the SDK's on every request, the token request too", async () => {
    const { seen, fetch } = recordingFetch();
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      userAgent: 'report/1',
      fetch,
    });
    await client.tasks.search();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const headers of seen) expect(headers.get('user-agent')).toBe(`report/1 idgov-sdk-js/${VERSION}`);
  });

  it('refuses a userAgent that is not a printable header value, before anything is sent', () => {
    for (const userAgent of ['', ' my-app', 'my-app\r\nX-Evil: 1', 'caf\u00e9/1', 42 as unknown as string]) {
      expect(() => new WebhookSender({ url: listener.url, hmac: { secret: 's' }, userAgent })).toThrow(
        ConfigurationError,
      );
      expect(
        () => new IdGovClient({ baseUrl: tenant.baseUrl, credentials: { token: 't' }, userAgent }),
      ).toThrow(/userAgent must be printable ASCII/);
    }
  });
});
