// The runtime smoke test: only the SDK and web APIs, so that it runs in Node, Bun, Deno and browsers.
// `sdk` and `webhooks` are the built package's entry points; `env` describes a running fake tenant.
export async function smoke(sdk, webhooks, env) {
  const client = new sdk.IdGovClient({
    baseUrl: env.baseUrl,
    credentials: { clientId: env.clientId, clientSecret: env.clientSecret },
  });
  let tasks = 0;
  let pages = 0;
  for await (const page of client.tasks.search({ pageSize: 10 }).pages()) {
    pages += 1;
    tasks += page.list?.length ?? 0;
  }
  if (tasks !== env.tasks || pages !== Math.ceil(env.tasks / 10))
    throw new Error(`paged ${tasks} tasks in ${pages} pages`);
  const rule = await client.findingRules.get(env.ruleId);
  if (rule?.id !== env.ruleId) throw new Error('rule lookup failed');

  const hmac = new webhooks.WebhookSender({ url: env.listenerUrl, hmac: { secret: env.hmacSecret } });
  const delivered = await hmac.send({ runtime: env.runtime });
  if (delivered.status !== 'delivered') throw new Error(`HMAC delivery: ${delivered.status}`);
  const signed = await hmac.sign({ n: 1 });
  const base = { method: 'POST', url: env.listenerUrl, headers: signed.headers, body: signed.body };
  if (
    (await webhooks.verifyWebhook(base, { hmacSecret: env.hmacSecret, baseUrl: env.baseUrl })).status !== 200
  ) {
    throw new Error('HMAC verify failed');
  }
  for (const alg of ['RS256', 'ES256', 'EdDSA']) {
    const pair = await webhooks.generateWebhookKeyPair(alg);
    const jwt = await new webhooks.WebhookSender({
      url: env.listenerUrl,
      jwt: { privateKey: pair.privateKey, kid: pair.kid },
    }).sign({ alg });
    const verdict = await webhooks.verifyWebhook(
      { method: 'POST', url: env.listenerUrl, headers: jwt.headers, body: jwt.body },
      { jwks: pair.jwks, baseUrl: env.baseUrl },
    );
    if (verdict.status !== 200) throw new Error(`${alg} verify: ${verdict.reason}`);
  }
  return `${env.runtime}: ${tasks} tasks in ${pages} pages, rule lookup, HMAC delivery, HMAC and RS256/ES256/EdDSA sign and verify`;
}
