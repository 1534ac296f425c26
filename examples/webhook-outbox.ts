/**
 * A durable outbox surviving a crash: events enqueued into a SQLite file are delivered by the next
 * process, once each, even the one that was sent just before the "crash" but never recorded.
 *
 *   IDGOV_WEBHOOK_URL=... IDGOV_WEBHOOK_SECRET=... node --import ./scripts/from-source.ts examples/webhook-outbox.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookOutbox } from '@idgov/sdk/outbox';
import { SqliteOutboxStore } from '@idgov/sdk/outbox/sqlite';
import { WebhookSender } from '@idgov/sdk/webhooks';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function outboxSurvivesCrash({ hmacListener }: ExampleEnvironment): Promise<void> {
  if (!hmacListener) {
    console.log('Webhook outbox skipped: set IDGOV_WEBHOOK_URL and IDGOV_WEBHOOK_SECRET.');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-demo-'));
  const path = join(dir, 'outbox.db');
  const sender = new WebhookSender({ url: hmacListener.url, hmac: { secret: hmacListener.secret } });
  try {
    // Process 1: enqueue three events (each durable once enqueue resolves), send the first by hand as
    // a worker would, then "crash": the outbox is dropped before it records anything.
    const before = new WebhookOutbox({ sender, store: new SqliteOutboxStore({ path }) });
    const ids = [];
    for (const employee of ['12345', '12346', '12347']) {
      ids.push((await before.enqueue({ employee_id: employee, status: 'terminated' })).eventId);
    }
    const stored = await before.get(ids[0] ?? '');
    await sender.send(stored?.body, { eventId: stored?.eventId });
    console.log(
      `Enqueued ${ids.length} events into ${path}; sent the first, then crashed before recording it`,
    );

    // Process 2: opens the same file and drains. The first event comes back 409: already delivered.
    const store = new SqliteOutboxStore({ path });
    const after = new WebhookOutbox({
      sender,
      store,
      onAttempt: (a) => console.log(`  ${a.eventId}: ${a.outcome} (HTTP ${a.answer?.status})`),
    });
    console.log('After the restart:');
    await after.drain();
    console.log(`Outbox: ${JSON.stringify(await after.counts())}`);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, outboxSurvivesCrash);
