// A consumer of the packed tarball: type-checked under node16 and bundler resolution, then run.
import { IdGovClient, TaskState, type TaskView, unlisted } from '@idgov/sdk';
import { FakeTenant } from '@idgov/sdk/testing';
import {
  type CryptoKey,
  generateWebhookKeyPair,
  type JWK,
  verifyWebhook,
  WebhookSender,
} from '@idgov/sdk/webhooks';

const tenant = new FakeTenant({ tasks: 42 });
const server = await tenant.listen();
const client = new IdGovClient({ baseUrl: server.url, credentials: tenant.client });

let count = 0;
// A value this release does not list is sent through unlisted(), on purpose; a typo does not compile.
// @ts-expect-error: 'OPEN' is not a task state (TASK_STATE_OPEN is)
void client.tasks.search({ taskStates: ['OPEN'] });
for await (const view of client.tasks.search({
  taskStates: [TaskState.OPEN, unlisted('TASK_STATE_FROM_THE_FUTURE')],
})) {
  const typed: TaskView = view; // for await yields a typed TaskView
  const state: string | null | undefined = typed.task?.state;
  if (typed.task?.type?.$kind === 'grant') void typed.task.type.grant.appId;
  void state;
  count += 1;
}
// @ts-expect-error: a typo in a field name is a compile error, not undefined at run time
void ({} as TaskView).tsak;

const url = `${server.url}/api/v1/webhooks/incoming/l`;
// Key types hold with any lib setting: a number is no private key, with or without the DOM library.
// @ts-expect-error: 42 is not a CryptoKey, a JWK or PEM text
const wrongKey = () => new WebhookSender({ url, jwt: { privateKey: 42, kid: 'k' } });
void wrongKey;
const pair = await generateWebhookKeyPair('ES256');
const key: CryptoKey = pair.privateKey;
const jwk: JWK = pair.publicJwk;
void [key, jwk];
const signed = await new WebhookSender({ url, hmac: { secret: 'consumer-secret' } }).sign({ ok: true });
const verdict = await verifyWebhook(
  { method: 'POST', url, headers: signed.headers, body: signed.body },
  { hmacSecret: 'consumer-secret', baseUrl: server.url },
);
await server.close();
if (count !== 42 || verdict.status !== 200)
  throw new Error(`consumer saw ${count} tasks, verdict ${verdict.status}`);
console.log(`ESM consumer: paged ${count} tasks, webhook verdict ${verdict.status}`);
