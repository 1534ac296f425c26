/**
 * `idgov-fake-tenant`: serves a fake tenant on loopback for tests written in any language.
 * Prints one JSON line (base URL, client credentials, an HMAC listener) and serves until stopped.
 *
 *   idgov-fake-tenant [--port 8080] [--tasks 100] [--seed 1] [--latency 0]
 *
 * @internal
 * @module
 */
import { parseArgs } from 'node:util';
import { FakeTenant } from './fake-tenant.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    tasks: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    latency: { type: 'string', default: '0' },
  },
});
const tenant = new FakeTenant({
  tasks: Number(values.tasks),
  seed: Number(values.seed),
  latencyMs: Number(values.latency),
});
const listener = tenant.addListener({ id: 'demo' });
const { url, close } = await tenant.listen({ port: Number(values.port) });
console.log(
  JSON.stringify({
    baseUrl: url,
    ...tenant.client,
    webhookUrl: tenant.listener(listener.id)?.url,
    hmacSecret: listener.secret,
  }),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void close().then(() => process.exit(0)));
