/** Parsing: the client's response check against JSON.parse alone, on a narrow and a broad page. */
import { FakeTenant } from '@idgov/sdk/testing';
// The schema and the check from the same sources: the check recognises a schema's "exactly one
// variant" objects by identity, so a schema from dist/ beside a check from src/ would fall back to zod.
import { TaskSearchResponseSchema } from '../schemas/index.ts';
import { parseResponse } from '../src/core/validation/validation.ts';
import { broadPageText } from './broad-page.ts';
import { compared, interleaved, msPerCall, type Result, SMALL } from './support.ts';

/** A real page from the fake tenant: 100 views, two expand paths. */
async function narrowPageText(): Promise<string> {
  const tenant = new FakeTenant({ tasks: 100, seed: 3 });
  const server = await tenant.listen();
  try {
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
    return await response.text();
  } finally {
    await server.close();
  }
}

export async function parsingBenchmarks(): Promise<Result[]> {
  const iterations = SMALL ? 20 : 200;
  const rounds = SMALL ? 1 : 7;
  const results: Result[] = [];
  for (const [shape, text] of [
    ['a 100-view page', await narrowPageText()],
    ['a broad 100-view page (every expand path)', broadPageText()],
  ] as const) {
    const kib = Math.round(text.length / 1024);
    // What the client does with every page, on every runtime: JSON.parse, then the in-place check.
    const ours = await interleaved(
      rounds,
      () => msPerCall(() => parseResponse(TaskSearchResponseSchema, text, 'task search'), iterations),
      () => msPerCall(() => JSON.parse(text), iterations),
    );
    results.push(
      compared(
        `parsing: ${shape} (${kib} KiB), as the client parses pages (every runtime)`,
        ours,
        'ms',
        '<= 2.0 of JSON.parse alone',
        (ratio) => ratio <= 2,
      ),
    );
    // For scale: zod's own parse, which copies every object of the page.
    const zod = await interleaved(
      rounds,
      () => msPerCall(() => TaskSearchResponseSchema.parse(JSON.parse(text)), iterations),
      () => msPerCall(() => JSON.parse(text), iterations),
    );
    results.push({
      name: `parsing: the same page with zod's parse (a copy of every object), for scale`,
      value: zod.subject,
      reference: zod.reference,
      unit: 'ms',
      ratio: zod.subject / zod.reference,
      goal: '(reference)',
      met: true,
    });
  }
  return results;
}
