/**
 * `@idgov/sdk/otel` with OpenTelemetry's own SDK and in-memory exporters (no mocks), against the
 * fake tenant on loopback: spans per request with retries as events, metrics, and no secret anywhere.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IdGovClient } from '../../src/index.ts';
import {
  instrumentClient,
  instrumentOutbox,
  instrumentSender,
  instrumentSync,
} from '../../src/otel/index.ts';
import { MemoryOutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';

const SEARCH = '/api/v1/search/tasks';

function telemetry() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  /** Every data point of metric `name` after a collection, as [attributes, value]. */
  const points = async (name: string) => {
    await reader.forceFlush();
    const metric = exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((p) => [p.attributes, p.value] as const);
  };
  return { spans, tracerProvider, meterProvider, points, options: { tracerProvider, meterProvider } };
}

/** A `fetch` that answers the first `count` searches with a 503, and sends everything else on. */
function failingFirst(count: number): typeof fetch {
  let left = count;
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname === SEARCH && left > 0) {
      left -= 1;
      return Promise.resolve(new Response('{}', { status: 503 }));
    }
    return fetch(input, init);
  };
}

const byPath = (spans: ReadableSpan[], path: string) =>
  spans.filter((span) => String(span.attributes['url.full']).endsWith(path));

describe('instrumentClient', () => {
  const tenant = new FakeTenant({ tasks: 25, seed: 5 });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());
  let t = telemetry();
  afterEach(() => {
    t = telemetry();
  });

  it('makes a retry one span with a retry event, following the HTTP client conventions', async () => {
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      fetch: failingFirst(1),
    });
    instrumentClient(client, t.options);
    await client.tasks.search({ pageSize: 10 });
    const [search, ...more] = byPath(t.spans.getFinishedSpans(), SEARCH);
    expect(more).toEqual([]);
    expect(search?.name).toBe('POST');
    expect(search?.kind).toBe(2); // SpanKind.CLIENT
    const { port } = new URL(tenant.baseUrl);
    expect(search?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': Number(port),
      'url.full': `${tenant.baseUrl}${SEARCH}`,
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(search?.attributes['http.response.header.x-request-id']).toEqual([
      expect.stringMatching(/^fake-req-/),
    ]);
    expect(
      search?.events.map((e) => [
        e.name,
        e.attributes?.['idgov.retry.reason'],
        e.attributes?.['http.response.status_code'],
      ]),
    ).toEqual([['retry', 'status', 503]]);
    expect(search?.status.code).toBe(0); // UNSET: it succeeded
    const tokenSpans = byPath(t.spans.getFinishedSpans(), '/auth/v1/token');
    expect(tokenSpans).toHaveLength(1);
  });

  it('marks a failed request with error.type and an error status; no token or secret in any span', async () => {
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
    instrumentClient(client, t.options);
    await expect(client.findingRules.get('nope')).rejects.toThrow(/404|not found/i);
    const [lookup] = byPath(t.spans.getFinishedSpans(), '/nope');
    expect(lookup?.attributes).toMatchObject({
      'error.type': 'NotFoundError',
      'http.response.status_code': 404,
    });
    expect(lookup?.status.code).toBe(2); // ERROR
    const everything = JSON.stringify(
      t.spans
        .getFinishedSpans()
        .map((span) => ({ attributes: span.attributes, events: span.events, status: span.status })),
    );
    expect(everything).not.toContain(tenant.client.clientSecret);
    expect(everything).not.toContain('fake-at-');
  });

  it('records request durations, retries, pages and items as metrics', async () => {
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      fetch: failingFirst(1),
    });
    instrumentClient(client, t.options);
    await client.tasks.search({ pageSize: 10 }).toArray();
    const durations = await t.points('http.client.request.duration');
    const searches = durations.filter(
      ([attributes]) =>
        attributes['http.request.method'] === 'POST' && attributes['http.response.status_code'] === 200,
    );
    // Three pages and one token request, all answered 200.
    expect(searches.map(([, value]) => (value as { count: number }).count)).toEqual([4]);
    expect(await t.points('idgov.request.retries')).toEqual([
      [expect.objectContaining({ 'idgov.retry.reason': 'status', 'http.response.status_code': 503 }), 1],
    ]);
    expect(await t.points('idgov.pages')).toEqual([[{ 'idgov.listing': 'task search' }, 3]]);
    expect(await t.points('idgov.page.items')).toEqual([[{ 'idgov.listing': 'task search' }, 25]]);
  });

  it('stops when told: no span for requests after', async () => {
    const client = new IdGovClient({ baseUrl: tenant.baseUrl, credentials: tenant.client });
    const stop = instrumentClient(client, t.options);
    await client.tasks.search();
    const before = t.spans.getFinishedSpans().length;
    stop();
    await client.tasks.search();
    expect(t.spans.getFinishedSpans()).toHaveLength(before);
  });
});

describe('instrumentSender and instrumentOutbox', () => {
  const tenant = new FakeTenant();
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it("gives a delivery's span its event ID, and counts the outbox's attempts and backlog", async () => {
    const t = telemetry();
    const listener = tenant.addListener();
    const sender = new WebhookSender({ url: listener.url, hmac: { secret: listener.secret } });
    const outbox = new WebhookOutbox({ sender, store: new MemoryOutboxStore() });
    instrumentSender(sender, t.options);
    instrumentOutbox(outbox, t.options);
    const { eventId } = await outbox.enqueue({ employee_id: 'e-7' });
    await outbox.enqueue({ employee_id: 'e-8' });
    expect(await t.points('idgov.outbox.backlog')).toContainEqual([
      expect.objectContaining({ 'idgov.outbox.state': 'pending' }),
      2,
    ]);
    await outbox.drain();
    // The deliveries' spans (the drain has its own, below).
    const spans = t.spans.getFinishedSpans().filter((span) => span.name !== 'idgov.outbox.drain');
    expect(spans).toHaveLength(2);
    expect(spans.map((span) => span.attributes['idgov.webhook.event_id'])).toContain(eventId);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(listener.secret);
    expect(await t.points('idgov.outbox.attempts')).toEqual([
      [expect.objectContaining({ 'idgov.outbox.outcome': 'delivered' }), 2],
    ]);
    expect(await t.points('idgov.outbox.backlog')).toContainEqual([
      expect.objectContaining({ 'idgov.outbox.state': 'delivered' }),
      2,
    ]);
    // The drain is a span of its own, with what it did.
    const drains = t.spans.getFinishedSpans().filter((span) => span.name === 'idgov.outbox.drain');
    expect(drains.map((span) => span.attributes)).toEqual([
      expect.objectContaining({
        'idgov.outbox.attempts': 2,
        'idgov.outbox.delivered': 2,
        'idgov.outbox.dead': 0,
      }),
    ]);
  });
});

describe('instrumentSync stopped before the final flush', () => {
  it("keeps the gauge's last value for the flush, as a process stops the instrumentation and then its providers", async () => {
    const tenant = new FakeTenant({ history: 120, seed: 9 });
    const { close } = await tenant.listen();
    const dir = mkdtempSync(join(tmpdir(), 'idgov-otel-gauge-'));
    try {
      const t = telemetry();
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const sync = new TaskSync({ client, store: new SqliteSyncStore({ path: join(dir, 'copy.db') }) });
      const stop = instrumentSync(sync, t.options);
      await sync.run();
      await sync.close();
      stop();
      expect(await t.points('idgov.sync.covered')).toEqual([[{}, 1]]);
      // Stopped: a run after it is no longer traced.
      const before = t.spans.getFinishedSpans().length;
      expect(t.spans.getFinishedSpans().filter((span) => span.name === 'idgov.sync.run')).toHaveLength(1);
      expect(before).toBeGreaterThan(0);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('two instrumentations of one sync, stopped in either order', () => {
  it('each stop ends its own spans only, and never brings back one stopped before', async () => {
    const tenant = new FakeTenant({ history: 60, seed: 12 });
    const { close } = await tenant.listen();
    const dir = mkdtempSync(join(tmpdir(), 'idgov-otel-twice-'));
    try {
      const a = telemetry();
      const b = telemetry();
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const sync = new TaskSync({
        client,
        store: new SqliteSyncStore({ path: join(dir, 'copy.db') }),
        logLevel: 'error',
      });
      const runs = (t: ReturnType<typeof telemetry>) =>
        t.spans.getFinishedSpans().filter((span) => span.name === 'idgov.sync.run').length;
      const stopA = instrumentSync(sync, a.options);
      const stopB = instrumentSync(sync, b.options);
      stopA();
      await sync.run();
      expect([runs(a), runs(b)]).toEqual([0, 1]);
      stopB();
      await sync.run();
      expect([runs(a), runs(b)]).toEqual([0, 1]);
      await sync.close();
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('instrumentOutbox and a listener URL that holds a key', () => {
  it("leaves the URL's query (where gateways keep keys) out of the outbox's metrics", async () => {
    const tenant = new FakeTenant();
    const { close } = await tenant.listen();
    try {
      const t = telemetry();
      const listener = tenant.addListener();
      const url = `${listener.url}?code=gateway-key-0042`;
      const sender = new WebhookSender({ url, hmac: { secret: listener.secret } });
      const outbox = new WebhookOutbox({ sender, store: new MemoryOutboxStore() });
      instrumentOutbox(outbox, t.options);
      await outbox.enqueue({ employee_id: 'e-9' });
      const backlog = await t.points('idgov.outbox.backlog');
      await outbox.drain();
      const attempts = await t.points('idgov.outbox.attempts');
      expect(JSON.stringify([backlog, attempts])).not.toContain('gateway-key-0042');
      expect(attempts).toEqual([
        [{ 'idgov.webhook.listener': listener.url, 'idgov.outbox.outcome': expect.any(String) }, 1],
      ]);
    } finally {
      await close();
    }
  });
});

describe('instrumentSync', () => {
  it("records a run's pages, tasks by change, windows and the share covered", async () => {
    const tenant = new FakeTenant({ history: 500, seed: 8 });
    const { close } = await tenant.listen();
    const dir = mkdtempSync(join(tmpdir(), 'idgov-otel-sync-'));
    try {
      const t = telemetry();
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'error',
      });
      const sync = new TaskSync({
        client,
        store: new SqliteSyncStore({ path: join(dir, 'copy.db') }),
        concurrency: 2,
      });
      instrumentSync(sync, t.options);
      instrumentClient(client, t.options);
      const summary = await sync.run();
      await sync.close();
      expect(await t.points('idgov.sync.pages')).toEqual([[{}, summary.pages]]);
      expect(await t.points('idgov.sync.tasks')).toContainEqual([{ 'idgov.sync.change': 'new' }, 500]);
      expect(await t.points('idgov.sync.windows')).toEqual([[{}, summary.windows]]);
      expect(await t.points('idgov.sync.covered')).toEqual([[{}, 1]]);
      // Every page of the sync is a span of its client, answered (the probe of the first task
      // besides); a page asked for ahead and cut short when its window ended is one that failed.
      const answered = byPath(t.spans.getFinishedSpans(), SEARCH).filter((span) => span.status.code !== 2);
      expect(answered.length).toBe(summary.pages + 1);
      // The run is a span of its own: its windows as events, what it did as attributes.
      const runs = t.spans.getFinishedSpans().filter((span) => span.name === 'idgov.sync.run');
      expect(runs).toHaveLength(1);
      expect(runs[0]?.attributes).toMatchObject({
        'idgov.sync.kind': 'full',
        'idgov.sync.complete': true,
        'idgov.sync.pages': summary.pages,
        'idgov.sync.tasks.new': 500,
      });
      const events = runs[0]?.events.map((event) => event.name) ?? [];
      expect(events.filter((name) => name === 'window claimed').length).toBeGreaterThanOrEqual(2);
      expect(events.filter((name) => name === 'window done')).toHaveLength(summary.windows);
      // A whole number of ms.
      expect(Number.isInteger(summary.durationMs)).toBe(true);
    } finally {
      await close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
