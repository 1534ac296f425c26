import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { AuthenticationError, IdGovClient, resolveExpanded, TaskSearchSortBy } from '../../src/index.ts';
import { FakeData, FakeTenant, fakeRule, fakeTask, type WireTask } from '../../src/testing/index.ts';
import { mswHandlers } from '../../src/testing/msw.ts';
import { generateWebhookKeyPair, WebhookSender } from '../../src/webhooks/index.ts';
import { caught } from '../helpers/caught.ts';

describe('fake tenant on a loopback port', () => {
  const tenant = new FakeTenant({ tasks: 57, seed: 7 });
  let close: () => Promise<void>;
  let client: IdGovClient;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
  });
  afterAll(() => close());

  const raw = (path: string, body: unknown, token?: string) =>
    fetch(`${tenant.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const accessToken = async () => {
    const answer = await fetch(`${tenant.baseUrl}/auth/v1/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: tenant.client.clientId,
        client_secret: tenant.client.clientSecret,
      }),
    });
    return ((await answer.json()) as { access_token: string }).access_token;
  };

  it('pages with the default size of 25 when pageSize is 0 or absent, and ends on an empty token', async () => {
    const sizes: number[] = [];
    const tokens: string[] = [];
    for await (const page of client.tasks.search()) void page;
    for await (const page of client.tasks.search({ pageSize: 0 }).pages()) {
      sizes.push(page.list?.length ?? 0);
      tokens.push(page.nextPageToken ?? '');
    }
    expect(sizes).toEqual([25, 25, 7]);
    expect(tokens[2]).toBe('');
    expect(tokens.slice(0, 2).every((t) => t.length > 0)).toBe(true);
  });

  it('treats a page size below 10 as 10 and above 100 as 100', async () => {
    const token = await accessToken();
    const count = async (pageSize: number) =>
      ((await (await raw('/api/v1/search/tasks', { pageSize }, token)).json()) as { list: unknown[] }).list
        .length;
    expect(await count(3)).toBe(10);
    expect(await count(250)).toBe(57);
    tenant.tasks.push(...tenant.data.tasks(60));
    expect(await count(250)).toBe(100);
    tenant.tasks.splice(57);
  });

  it('binds page tokens to the request they came from', async () => {
    const token = await accessToken();
    const first = (await (await raw('/api/v1/search/tasks', { query: 'a' }, token)).json()) as {
      nextPageToken: string;
    };
    const wrong = await raw('/api/v1/search/tasks', { query: 'b', pageToken: first.nextPageToken }, token);
    expect(wrong.status).toBe(400);
  });

  it('evaluates filters and sort orders on stored tasks', async () => {
    const all: { id: string; app?: string; state?: string; numericId: bigint }[] = [];
    for await (const view of client.tasks.search({
      sortBy: TaskSearchSortBy.REVERSE_TICKET_ID,
      pageSize: 100,
    })) {
      all.push({ id: view.task?.id ?? '', numericId: BigInt(view.task?.numericId ?? 0) });
    }
    expect(all.map((t) => t.numericId)).toEqual(
      [...all.map((t) => t.numericId)].sort((a, b) => (a < b ? 1 : -1)),
    );
    const revokes: string[] = [];
    for await (const view of client.tasks.search({
      taskTypes: [{ revoke: {} }],
      excludeIds: [all[0]?.id ?? ''],
    })) {
      revokes.push(view.task?.type?.$kind ?? '');
    }
    expect(revokes.length).toBeGreaterThan(5);
    expect(new Set(revokes)).toEqual(new Set(['revoke']));
    // Generated tasks are dated over the 90 days before the tenant's clock.
    const dates = tenant.tasks.map((t) => Date.parse(t.createdAt ?? ''));
    const days = (ms: number) => Math.floor(ms / (24 * 3600 * 1000));
    expect(days(Date.now() - Math.min(...dates))).toBeGreaterThan(60);
    expect(days(Date.now() - Math.min(...dates))).toBeLessThan(90);
    expect(Math.max(...dates)).toBeLessThan(Date.now());
    const [after, before] = [
      new Date(Date.now() - 60 * 24 * 3600 * 1000),
      new Date(Date.now() - 30 * 24 * 3600 * 1000),
    ];
    const created: string[] = [];
    for await (const view of client.tasks.search({ createdAfter: after, createdBefore: before })) {
      created.push(view.task?.createdAt ?? '');
    }
    const expected = dates.filter((d) => d > after.getTime() && d < before.getTime());
    expect(expected.length).toBeGreaterThan(5);
    expect(created.length).toBe(expected.length);
  });

  it('expands related objects once per page and points views at them', async () => {
    const page = await client.tasks.search({ expandMask: { paths: ['app_id', 'user_id'] }, pageSize: 20 });
    const types = new Set(page.expanded?.map((e) => `${e?.['@type']}/${e?.id}`));
    expect(types.size).toBe(page.expanded?.length);
    for (const view of page.list ?? []) {
      if (!view) continue;
      expect(resolveExpanded(view, 'userPath')?.id).toBe(view.task?.userId);
    }
  });

  it('answers 401 to a missing or expired token, and the client recovers with a new one', async () => {
    expect((await raw('/api/v1/search/tasks', {})).status).toBe(401);
    const short = new FakeTenant({ tasks: 3, tokenLifetimeSeconds: 1 });
    const server = await short.listen();
    try {
      const shortClient = new IdGovClient({ baseUrl: short.baseUrl, credentials: short.client });
      await shortClient.tasks.search();
      await new Promise((r) => setTimeout(r, 1100));
      await shortClient.tasks.search();
      expect(short.stats.tokensIssued).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('refuses wrong client credentials with the OAuth error', async () => {
    const wrong = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: { clientId: tenant.client.clientId, clientSecret: 'nope' },
    });
    const error = await caught(wrong.tasks.search());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.oauthError).toBe('invalid_client');
  });

  it('serves rules and entitlement listings', async () => {
    const rule = fakeRule({ id: 'rule/with slash' });
    tenant.rules.set(rule.id ?? '', rule);
    expect((await client.findingRules.get('rule/with slash'))?.displayName).toBe(rule.displayName);
    tenant.entitlements.set(
      'app-x',
      Array.from({ length: 23 }, () => tenant.data.entitlement('app-x')),
    );
    let count = 0;
    for await (const item of client.appEntitlements.list('app-x', { pageSize: 10 }))
      count += item.appEntitlement ? 1 : 0;
    expect(count).toBe(23);
  });
});

describe('fake tenant webhook listener: every status a listener answers', () => {
  const tenant = new FakeTenant();
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  const post = (url: string, headers: Record<string, string>, body: string) =>
    fetch(url, { method: 'POST', headers, body, redirect: 'manual' });

  it('200 accepts and records; 409 refuses the same event ID again without re-running', async () => {
    const listener = tenant.addListener();
    const sender = new WebhookSender({ url: listener.url, hmac: { secret: listener.secret ?? '' } });
    const signed = await sender.sign({ employee_id: '12345', status: 'terminated' });
    expect((await post(listener.url, signed.headers, signed.body)).status).toBe(200);
    expect((await post(listener.url, signed.headers, signed.body)).status).toBe(409);
    expect(tenant.deliveries.filter((d) => d.eventId === signed.eventId)).toEqual([
      expect.objectContaining({
        listenerId: listener.id,
        body: { employee_id: '12345', status: 'terminated' },
      }),
    ]);
  });

  it('400 for a missing header, a stale timestamp, a bad event ID and a body that is not JSON', async () => {
    const listener = tenant.addListener();
    const sender = new WebhookSender({ url: listener.url, hmac: { secret: listener.secret ?? '' } });
    const signed = await sender.sign({ a: 1 });
    const { 'Webhook-Timestamp': _, ...noTimestamp } = signed.headers;
    expect((await post(listener.url, noTimestamp, signed.body)).status).toBe(400);
    const stale = await sender.sign({ a: 1 }, { timestamp: Math.floor(Date.now() / 1000) - 400 });
    expect((await post(listener.url, stale.headers, stale.body)).status).toBe(400);
    expect(
      (await post(listener.url, { ...signed.headers, 'Webhook-Event-Id': 'nope' }, signed.body)).status,
    ).toBe(400);
    expect((await post(listener.url, signed.headers, '{oops')).status).toBe(400);
  });

  it('401 for a wrong HMAC, a missing signature, a JWT from an unknown key and an expired JWT', async () => {
    const hmac = tenant.addListener();
    const wrong = await new WebhookSender({ url: hmac.url, hmac: { secret: 'not-the-secret' } }).sign({});
    expect((await post(hmac.url, wrong.headers, wrong.body)).status).toBe(401);
    const { 'Webhook-Signature': _, ...unsigned } = wrong.headers;
    expect((await post(hmac.url, unsigned, wrong.body)).status).toBe(401);

    const pair = await generateWebhookKeyPair('ES256');
    const stranger = await generateWebhookKeyPair('ES256', { kid: pair.kid });
    const jwt = tenant.addListener({ jwks: pair.jwks });
    const good = await new WebhookSender({
      url: jwt.url,
      jwt: { privateKey: pair.privateKey, kid: pair.kid },
    }).sign({});
    expect((await post(jwt.url, good.headers, good.body)).status).toBe(200);
    const forged = await new WebhookSender({
      url: jwt.url,
      jwt: { privateKey: stranger.privateKey, kid: pair.kid },
    }).sign({});
    expect((await post(jwt.url, forged.headers, forged.body)).status).toBe(401);
    const old = Math.floor(Date.now() / 1000) - 200;
    const expired = await new WebhookSender({
      url: jwt.url,
      jwt: { privateKey: pair.privateKey, kid: pair.kid, expiresIn: 60 },
    }).sign({}, { timestamp: old });
    expect((await post(jwt.url, expired.headers, expired.body)).status).toBe(401);
  });

  it('403 from a source address outside the allowed CIDRs', async () => {
    const listener = tenant.addListener({ allowedCidrs: ['10.0.0.0/8'] });
    const sender = new WebhookSender({ url: listener.url, hmac: { secret: listener.secret ?? '' } });
    const error = await caught(sender.send({ a: 1 }));
    expect(error.status).toBe(403);
    const open = tenant.addListener({ allowedCidrs: ['127.0.0.0/8', '::1/128'] });
    const ok = new WebhookSender({ url: open.url, hmac: { secret: open.secret ?? '' } });
    expect((await ok.send({ a: 1 })).status).toBe('delivered');
  });

  it('400 for a body over 64 KB (the sender refuses it before sending)', async () => {
    const listener = tenant.addListener();
    const sender = new WebhookSender({
      url: listener.url,
      hmac: { secret: listener.secret ?? '' },
      maxBodyBytes: 200_000,
    });
    const signed = await sender.sign({ big: 'x'.repeat(70_000) });
    expect((await post(listener.url, signed.headers, signed.body)).status).toBe(400);
  });

  it('remembers event IDs for 7 days', async () => {
    let now = Date.now();
    const clocked = new FakeTenant({ now: () => now });
    const listener = clocked.addListener();
    const { close: stop } = await clocked.listen();
    try {
      const url = clocked.listener(listener.id)?.url ?? '';
      const sender = new WebhookSender({ url, hmac: { secret: listener.secret ?? '' } });
      const eventId = crypto.randomUUID();
      const at = async (ms: number) => {
        now = ms;
        const signed = await sender.sign({ n: 1 }, { eventId, timestamp: Math.floor(ms / 1000) });
        return (await post(url, signed.headers, signed.body)).status;
      };
      const start = Date.now();
      expect(await at(start)).toBe(200);
      expect(await at(start + 6 * 24 * 3600 * 1000)).toBe(409);
      expect(await at(start + 7 * 24 * 3600 * 1000 + 1000)).toBe(200);
    } finally {
      await stop();
    }
  });
});

describe('fake tenant listeners', () => {
  it('point at the server the tenant is served on, also when added before listen()', async () => {
    const tenant = new FakeTenant();
    const early = tenant.addListener({ id: 'early' });
    expect(early.url).toBe('https://fake-tenant.test/api/v1/webhooks/incoming/early');
    const { url, close } = await tenant.listen();
    try {
      const late = tenant.addListener({ id: 'late id' });
      expect(early.url).toBe(`${url}/api/v1/webhooks/incoming/early`);
      expect(late.url).toBe(`${url}/api/v1/webhooks/incoming/late%20id`);
      for (const listener of [early, late]) {
        const sender = new WebhookSender({
          url: listener.url,
          hmac: { secret: listener.secret },
          maxRetries: 0,
        });
        expect((await sender.send({ a: 1 })).status).toBe('delivered');
      }
      expect(JSON.parse(JSON.stringify(early))).toMatchObject({ kind: 'hmac', url: early.url });
    } finally {
      await close();
    }
  });

  it('answers 404 to a listener path with malformed percent-encoding, not 500', async () => {
    const tenant = new FakeTenant();
    const { url, close } = await tenant.listen();
    try {
      for (const path of ['/api/v1/webhooks/incoming/%E0%A4%A', '/fake/listeners/%ZZ/jwks.json']) {
        const answer = await fetch(`${url}${path}`, {
          method: path.includes('jwks') ? 'GET' : 'POST',
          body: path.includes('jwks') ? undefined : '{}',
        });
        expect(answer.status).toBe(404);
      }
    } finally {
      await close();
    }
  });

  it('are typed by kind: an HMAC listener always has its secret, a JWT listener its JWKS', async () => {
    const tenant = new FakeTenant();
    const hmac = tenant.addListener();
    expectTypeOf(hmac.secret).toEqualTypeOf<string>();
    expect(hmac).toMatchObject({ kind: 'hmac', secret: expect.stringMatching(/^[\w-]{43}$/) });
    const pair = await generateWebhookKeyPair('ES256');
    const jwt = tenant.addListener({ jwks: pair.jwks });
    expect(jwt).toMatchObject({ kind: 'jwt', jwks: pair.jwks });
    expect('secret' in jwt).toBe(false);
    const found = tenant.listener(jwt.id);
    if (found?.kind === 'jwt') expectTypeOf(found.jwks).not.toBeUndefined();
    // @ts-expect-error: a listener is HMAC or JWT, never both
    tenant.addListener({ secret: 's', jwks: pair.jwks });
  });
});

describe('fake data', () => {
  it('dates tasks over the 90 days before now, the same for the same seed and now', () => {
    const now = Date.parse('2026-06-30T12:00:00Z');
    const tasks = new FakeData(3, { now }).tasks(200);
    const ages = tasks.map((t) => (now - Date.parse(t.createdAt ?? '')) / (24 * 3600 * 1000));
    expect(Math.min(...ages)).toBeGreaterThan(0);
    expect(Math.max(...ages)).toBeLessThanOrEqual(90);
    expect(Math.max(...ages) - Math.min(...ages)).toBeGreaterThan(80);
    expect(new Set(tasks.map((t) => t.createdAt?.slice(0, 10))).size).toBeGreaterThan(60);
    expect(new FakeData(3, { now }).tasks(200)).toEqual(tasks);
  });
});

describe('fake tenant history and actions', () => {
  it('closes each closed task within a week, none in the future; a third are open; a search by action time finds actions, not deletions', async () => {
    let now = Date.parse('2026-06-30T12:00:00Z');
    const tenant = new FakeTenant({ history: 3_000, seed: 5, now: () => now });
    const closed = tenant.tasks.filter((t) => t.state === 'TASK_STATE_CLOSED');
    expect(closed.every((t) => Date.parse(t.updatedAt ?? '') <= now)).toBe(true);
    const week = 7 * 24 * 3600 * 1000;
    expect(closed.every((t) => Date.parse(t.updatedAt ?? '') - Date.parse(t.createdAt ?? '') < week)).toBe(
      true,
    );
    const open = tenant.tasks.length - closed.length;
    expect(open / tenant.tasks.length).toBeGreaterThan(0.28);
    expect(open / tenant.tasks.length).toBeLessThan(0.4);

    now += 60_000;
    const since = new Date(now - 1).toISOString();
    const [commented] = tenant.commentOnTasks(1, (t) => t.state === 'TASK_STATE_CLOSED');
    const [shut] = tenant.closeTasks(1);
    const [deleted] = tenant.deleteTasks(1, (t) => t.state === 'TASK_STATE_CLOSED' && t !== commented);
    expect(commented?.commentCount).toBe((closed.find((t) => t.id === commented?.id)?.commentCount ?? 0) + 1);
    const { close } = await tenant.listen();
    try {
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const acted = await client.tasks.search({ includeActedAfter: since, includeDeleted: true }).toArray();
      expect(acted.map((v) => v.task?.id).sort()).toEqual([commented?.id, shut?.id].sort());
      expect(deleted?.deletedAt).toBeTruthy();
      // Deleting an acted-on task keeps when it was acted on.
      tenant.deleteTasks(1, (t) => t.id === commented?.id);
      const again = await client.tasks.search({ includeActedAfter: since, includeDeleted: true }).toArray();
      expect(again.map((v) => v.task?.id).sort()).toEqual([commented?.id, shut?.id].sort());
    } finally {
      await close();
    }
  });
});

describe('fake tenant through msw', () => {
  const tenant = new FakeTenant({ tasks: [fakeTask({ displayName: 'Only task', variant: 'finding' })] });
  const server = setupServer();
  beforeAll(async () => {
    server.use(...(await mswHandlers(tenant)));
    server.listen({ onUnhandledFrame: 'error' });
  });
  afterAll(() => server.close());

  it('serves the same core: token, search and webhooks', async () => {
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
    const page = await client.tasks.search();
    expect(page.list?.[0]?.task?.displayName).toBe('Only task');
    expect(page.list?.[0]?.task?.type?.$kind).toBe('finding');
    const listener = tenant.addListener();
    const result = await new WebhookSender({
      url: listener.url,
      hmac: { secret: listener.secret ?? '' },
    }).send({ x: 1 });
    expect(result.status).toBe('delivered');
    expect(tenant.deliveries).toHaveLength(1);
  });

  it('injects seeded faults that the client rides through', async () => {
    const flaky = new FakeTenant({
      tasks: 40,
      faults: { serverError: 0.3, drop: 0.1, seed: 3 },
      baseUrl: 'https://flaky.test',
    });
    server.use(...(await mswHandlers(flaky)));
    const client = new IdGovClient({ baseUrl: flaky.baseUrl, credentials: flaky.client, maxRetries: 6 });
    const ids: string[] = [];
    for await (const view of client.tasks.search({ pageSize: 10 })) ids.push(view.task?.id ?? '');
    expect(ids).toEqual(flaky.tasks.map((t) => t.id));
    expect(flaky.stats.faults.serverError + flaky.stats.faults.drop).toBeGreaterThan(0);
  });
});

describe('fake tenant searches by creation time', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const task = (id: string, createdAt: string | undefined) => ({ ...fakeTask({ id }), createdAt });
  const ids = (tasks: readonly { id?: string | null }[]) => tasks.map((t) => t.id);

  it('finds tasks in a stretch of time, in creation order, after tasks are replaced, changed where a search looks, or added', async () => {
    const { searchTasks } = await import('../../src/testing/task-filter.ts');
    const base = Date.parse('2026-01-01T00:00:00Z');
    const tasks = Array.from({ length: 50 }, (_, i) => task(`t${i}`, iso(base + i * 1000)));
    const window = {
      createdAfter: iso(base + 9_999),
      createdBefore: iso(base + 20_000),
      sortBy: 'TASK_SEARCH_SORT_BY_CREATED_AT',
    };
    expect(ids(searchTasks(tasks, window))).toEqual(Array.from({ length: 10 }, (_, i) => `t${i + 10}`));
    tasks[3] = { ...(tasks[3] as WireTask), createdAt: iso(base + 15_500) }; // moved in time: now out of order
    expect(ids(searchTasks(tasks, window))).toEqual([
      't10',
      't11',
      't12',
      't13',
      't14',
      't15',
      't3',
      't16',
      't17',
      't18',
      't19',
    ]);
    (tasks[12] as { createdAt?: string }).createdAt = iso(base + 40_000); // changed in place, where the search looks
    expect(ids(searchTasks(tasks, window))).not.toContain('t12');
    tasks.push(task('late', iso(base + 12_500)));
    expect(ids(searchTasks(tasks, window))).toContain('late');
    tasks.push(task('undated', undefined), task('garbage', 'not a time'));
    const all = searchTasks(tasks, { createdAfter: iso(0), sortBy: 'TASK_SEARCH_SORT_BY_CREATED_AT' });
    expect(ids(all)).not.toContain('undated');
    expect(ids(all)).not.toContain('garbage');
    expect(searchTasks(tasks, { createdAfter: 'yesterday' })).toEqual([]);
    const offset = [task('a', '2026-01-01T01:00:00+01:00'), task('b', '2026-01-01T00:30:00Z')];
    expect(
      ids(searchTasks(offset, { createdAfter: iso(base - 1), sortBy: 'TASK_SEARCH_SORT_BY_CREATED_AT' })),
    ).toEqual(['a', 'b']);
  });

  it('answers a page as the whole search would, looking no further than the page in creation order', async () => {
    const { searchPage, searchTasks } = await import('../../src/testing/task-filter.ts');
    const tenant = new FakeTenant({ history: 1_500, seed: 9 });
    const tasks = tenant.tasks;
    const at = (i: number) => tasks[i]?.createdAt as string;
    const filters = [
      {
        createdAfter: at(100),
        createdBefore: at(900),
        includeDeleted: true,
        sortBy: 'TASK_SEARCH_SORT_BY_CREATED_AT',
      },
      { createdAfter: at(0), taskStates: ['TASK_STATE_OPEN'] },
      { createdBefore: at(1_200), includeDeleted: false, sortBy: 'TASK_SEARCH_SORT_BY_REVERSE_CREATED_AT' },
      { createdAfter: at(50), includeActedAfter: at(1_400), includeDeleted: true },
      { taskStates: ['TASK_STATE_CLOSED'] },
    ];
    for (const filter of filters) {
      const whole = searchTasks(tasks, filter);
      for (const [offset, size] of [
        [0, 25],
        [100, 100],
        [whole.length - 10, 10],
        [whole.length - 10, 11],
        [whole.length, 25],
      ] as const) {
        const { page, more } = searchPage(tasks, filter, offset, size);
        expect(page).toEqual(whole.slice(offset, offset + size));
        expect(more).toBe(offset + size < whole.length);
      }
    }
    // A task moved in time in place, where the page looks, is seen there.
    const window = filters[0] as (typeof filters)[0];
    const moved = tasks[500] as WireTask;
    (moved as { createdAt?: string }).createdAt = at(1_499);
    expect(searchPage(tasks, window, 0, 1_000).page).not.toContain(moved);
  });
});
