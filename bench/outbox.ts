/**
 * The webhook outbox: events per second enqueued (each durable before the next) and delivered on
 * loopback, for each store, beside `send()` alone over the same fake tenant (in its own process).
 * The PostgreSQL rows need a server: IDGOV_TEST_PG_URL, or an installed PostgreSQL for
 * scripts/pg-test-server.sh; without one they are left out, saying so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryOutboxStore, type OutboxStore, WebhookOutbox } from '@idgov/sdk/outbox';
import { PostgresOutboxStore } from '@idgov/sdk/outbox/postgres';
import { SqliteOutboxStore } from '@idgov/sdk/outbox/sqlite';
import { WebhookSender } from '@idgov/sdk/webhooks';
import { NO_POSTGRES, postgresForTests } from '../test/helpers/postgres.ts';
import { serve } from './paging.ts';
import { compared, type Result, SMALL } from './support.ts';

const PAYLOAD = { employee_id: '12345', status: 'terminated', note: 'x'.repeat(200) };

async function perSecond(count: number, run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return count / ((performance.now() - started) / 1000);
}

/** `send()` alone, `inFlight` at a time: the reference for delivery. */
async function sendAlone(sender: WebhookSender, count: number, inFlight: number): Promise<number> {
  return perSecond(count, async () => {
    for (let done = 0; done < count; done += inFlight) {
      await Promise.all(Array.from({ length: inFlight }, () => sender.send(PAYLOAD)));
    }
  });
}

export async function outboxBenchmarks(): Promise<Result[]> {
  const count = SMALL ? 200 : 2_000;
  const served = await serve(0);
  const dir = mkdtempSync(join(tmpdir(), 'idgov-bench-outbox-'));
  const pg = await postgresForTests();
  const listener = served.listeners?.[0];
  if (!listener?.secret) throw new Error('the fake tenant printed no HMAC listener');
  const sender = new WebhookSender({ url: listener.url, hmac: { secret: listener.secret } });
  const results: Result[] = [];
  try {
    await sendAlone(sender, 100, 1); // warm-up
    const stores: Array<[string, () => Promise<OutboxStore>]> = [
      ['memory', async () => new MemoryOutboxStore()],
      ['SQLite', async () => new SqliteOutboxStore({ path: join(dir, `${crypto.randomUUID()}.db`) })],
    ];
    if (pg) {
      stores.push([
        'PostgreSQL',
        async () => {
          const store = new PostgresOutboxStore({
            connectionString: pg.url,
            table: `${pg.schema}.bench_${crypto.randomUUID().slice(0, 8)}`,
          });
          await store.migrate();
          return store;
        },
      ]);
    } else {
      console.log(`outbox: PostgreSQL rows left out, ${NO_POSTGRES}`);
    }
    for (const inFlight of [1, 8]) {
      const reference = await sendAlone(sender, count, inFlight);
      for (const [name, open] of stores) {
        const store = await open();
        const outbox = new WebhookOutbox({ sender, store, concurrency: inFlight });
        const enqueued = await perSecond(count, async () => {
          for (let i = 0; i < count; i++) await outbox.enqueue(PAYLOAD);
        });
        const delivered = await perSecond(count, () => outbox.drain());
        if ((await outbox.counts()).delivered !== count) throw new Error(`outbox ${name}: not all delivered`);
        await store.close();
        const mode = inFlight === 1 ? 'in order' : `${inFlight} in flight`;
        if (inFlight === 1) {
          results.push({
            name: `outbox: ${name} enqueue, one at a time${name === 'memory' ? '' : ' (each committed)'}`,
            value: enqueued,
            unit: 'ev/s',
            ratio: enqueued,
            goal: 'reported',
            met: true,
          });
        }
        results.push(
          compared(
            `outbox: ${name} delivered, ${mode}`,
            { subject: delivered, reference },
            'ev/s',
            `>= 0.5 of send() alone, ${inFlight} in flight`,
            (ratio) => ratio >= 0.5,
          ),
        );
      }
    }
  } finally {
    served.child.kill();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
