// Runs the smoke test in a server runtime (Node, Bun, Deno) against the built package.
import * as sdk from '../../dist/index.js';
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
} finally {
  await server.close();
}
