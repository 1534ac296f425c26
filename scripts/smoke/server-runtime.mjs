// Runs the smoke test in a server runtime (Node, Bun, Deno) against the built package.
import * as sdk from '../../dist/index.js';
import { MemoryOutboxStore, WebhookOutbox } from '../../dist/outbox.js';
import { FakeTenant, fakeRule } from '../../dist/testing.js';
import * as webhooks from '../../dist/webhooks.js';
import { smoke } from './core.mjs';

const runtime = globalThis.Deno
  ? `Deno ${Deno.version.deno}`
  : globalThis.Bun
    ? `Bun ${Bun.version}`
    : `Node ${process.version}`;
const tenant = new FakeTenant({ tasks: 25, rules: [fakeRule({ id: 'rule-1' })] });
const server = await tenant.listen();
const listener = tenant.addListener({ id: 'smoke' });
try {
  console.log(
    await smoke(sdk, webhooks, {
      runtime,
      tasks: 25,
      ruleId: 'rule-1',
      baseUrl: server.url,
      ...tenant.client,
      listenerUrl: listener.url,
      hmacSecret: listener.secret,
    }),
  );
  // The outbox is web-standard like the sender: it must run wherever the sender runs.
  const sender = new webhooks.WebhookSender({ url: listener.url, hmac: { secret: listener.secret } });
  const outbox = new WebhookOutbox({ sender, store: new MemoryOutboxStore() });
  const { eventId } = await outbox.enqueue({ runtime });
  const drained = await outbox.drain();
  if (drained.delivered !== 1 || tenant.deliveries.at(-1)?.eventId !== eventId) {
    throw new Error(`outbox: ${JSON.stringify(drained)}`);
  }
  console.log(`${runtime}: outbox enqueue and drain`);
} finally {
  await server.close();
}
