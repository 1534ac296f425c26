/** Parsing: our response schema against JSON.parse alone, on a page of 100 realistic views. */
import { TaskSearchResponseSchema } from '@idgov/sdk/schemas';
import { FakeTenant } from '@idgov/sdk/testing';
import { compile } from 'zod/v4/core';
import { compared, interleaved, msPerCall, type Result, SMALL } from './support.ts';

export async function parsingBenchmarks(): Promise<Result[]> {
  const tenant = new FakeTenant({ tasks: 100, seed: 3 });
  const server = await tenant.listen();
  let text: string;
  try {
    // A real page as the service would send it, with expanded objects.
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      ...{ client_id: tenant.client.clientId, client_secret: tenant.client.clientSecret },
    });
    const { access_token } = (await (
      await fetch(`${server.url}/auth/v1/token`, { method: 'POST', body: form })
    ).json()) as { access_token: string };
    const response = await fetch(`${server.url}/api/v1/search/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ pageSize: 100, expandMask: { paths: ['app_id', 'user_id'] } }),
    });
    text = await response.text();
  } finally {
    await server.close();
  }
  const iterations = SMALL ? 20 : 200;
  const rounds = SMALL ? 1 : 7;
  // What the client does on servers: the response schema compiled by zod (see src/core/validation.ts).
  const compiled = compile(TaskSearchResponseSchema);
  const kib = Math.round(text.length / 1024);
  const results: Result[] = [];
  for (const [label, schema] of [
    ['compiled, as the client parses pages on servers', compiled],
    ['runtime parser, as browsers parse pages (no compiler there)', TaskSearchResponseSchema],
  ] as const) {
    const { subject, reference } = await interleaved(
      rounds,
      () => msPerCall(() => schema.parse(JSON.parse(text)), iterations),
      () => msPerCall(() => JSON.parse(text), iterations),
    );
    results.push(
      compared(
        `parsing: a 100-view page (${kib} KiB), ${label}`,
        { subject, reference },
        'ms',
        '<= 2.0 of JSON.parse alone',
        (ratio) => ratio <= 2,
      ),
    );
  }
  return results;
}
