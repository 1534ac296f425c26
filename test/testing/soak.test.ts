/**
 * Soak under injected faults. CI runs it small; `npm run soak` runs the full size
 * (20,000 tasks, 2,000 webhook events). Every task and event must arrive exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdGovClient } from '../../src/index.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';

const TASKS = Number(process.env.SOAK_TASKS ?? 2_000);
const EVENTS = Number(process.env.SOAK_EVENTS ?? 200);
const FAULTS = {
  serverError: 0.1,
  drop: 0.03,
  rateLimit: 0.05,
  slow: 0.02,
  retryAfterSeconds: 1,
  slowMs: 300,
  seed: 7,
};

describe(`soak: ${TASKS} tasks and ${EVENTS} webhook events under faults`, () => {
  const tenant = new FakeTenant({ tasks: TASKS, seed: 11, tokenLifetimeSeconds: 3, faults: FAULTS });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  it('pages through every task exactly once and in order', { timeout: 600_000 }, async () => {
    const client = new IdGovClient({
      baseUrl: tenant.baseUrl,
      credentials: tenant.client,
      maxRetries: 10,
      timeout: 5_000,
    });
    const before = { ...tenant.stats, faults: { ...tenant.stats.faults } };
    const started = Date.now();
    const seen: string[] = [];
    for await (const view of client.tasks.search({ pageSize: 100 }, { prefetch: true }))
      seen.push(view.task?.id ?? '');
    const expected = tenant.tasks.map((t) => t.id ?? '');
    const unique = new Set(seen);
    const report = {
      tasks: seen.length,
      lost: expected.filter((id) => !unique.has(id)).length,
      duplicated: seen.length - unique.size,
      pages: tenant.stats.searchPages - before.searchPages,
      requests: tenant.stats.requests - before.requests,
      faultsInjected: Object.fromEntries(
        Object.entries(tenant.stats.faults).map(([k, v]) => [
          k,
          v - before.faults[k as keyof typeof before.faults],
        ]),
      ),
      retriesAndReauths:
        tenant.stats.requests -
        before.requests -
        (tenant.stats.searchPages - before.searchPages) -
        (tenant.stats.tokensIssued - before.tokensIssued),
      tokenRefreshes: tenant.stats.tokensIssued - before.tokensIssued,
      seconds: (Date.now() - started) / 1000,
    };
    console.log(`paging soak: ${JSON.stringify(report)}`);
    expect(seen).toEqual(expected);
    expect(report.lost).toBe(0);
    expect(report.duplicated).toBe(0);
    expect(Object.values(report.faultsInjected).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('delivers every webhook event exactly once', { timeout: 600_000 }, async () => {
    const listener = tenant.addListener();
    const sender = new WebhookSender({
      url: tenant.listener(listener.id)?.url ?? '',
      hmac: { secret: listener.secret ?? '' },
      maxRetries: 10,
      timeout: 5_000,
    });
    const faultsBefore = { ...tenant.stats.faults };
    const started = Date.now();
    const results: { status: string; eventId: string; attempts: number }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < EVENTS) {
        const n = next++;
        results.push(await sender.send({ n, employee_id: `e-${n}`, status: 'terminated' }));
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    const accepted = tenant.deliveries.filter((d) => d.listenerId === listener.id);
    const acceptedIds = new Set(accepted.map((d) => d.eventId));
    const report = {
      events: EVENTS,
      delivered: results.filter((r) => r.status === 'delivered').length,
      duplicateAnswers: results.filter((r) => r.status === 'duplicate').length,
      accepted: accepted.length,
      lost: results.filter((r) => !acceptedIds.has(r.eventId)).length,
      acceptedTwice: accepted.length - acceptedIds.size,
      retries: results.reduce((sum, r) => sum + r.attempts - 1, 0),
      faultsInjected: Object.fromEntries(
        Object.entries(tenant.stats.faults).map(([k, v]) => [
          k,
          v - faultsBefore[k as keyof typeof faultsBefore],
        ]),
      ),
      seconds: (Date.now() - started) / 1000,
    };
    console.log(`webhook soak: ${JSON.stringify(report)}`);
    expect(results).toHaveLength(EVENTS);
    expect(report.lost).toBe(0);
    expect(report.acceptedTwice).toBe(0);
    expect(accepted.map((d) => (d.body as { n: number }).n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: EVENTS }, (_, i) => i),
    );
  });
});
