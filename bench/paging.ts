/** Paging benchmarks: throughput, prefetch, memory over 100,000 tasks, token requests under concurrency. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { IdGovClient } from '@idgov/sdk';
import { FakeTenant } from '@idgov/sdk/testing';
import { compared, interleaved, type Result, SMALL } from './support.ts';

export interface Served {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Its webhook listeners (the fake tenant's bin serves one HMAC listener unless told otherwise). */
  readonly listeners?: readonly { readonly url: string; readonly secret?: string }[];
  readonly child: ChildProcess;
}

/** A server in its own process, so its work does not share the measured event loop. */
export async function start(script: string, args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return { ...JSON.parse(line), child };
}

/** The fake tenant (the built bin), `tasks` tasks, answering after `latencyMs`. */
export const serve = (tasks: number, latencyMs = 0) =>
  start('../dist/bin.js', ['--tasks', String(tasks), '--latency', String(latencyMs)]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A no-op handler for every client event: what observing a client costs at the least.
const noop = () => {};
const EVERY_HOOK = { request: noop, response: noop, retry: noop, requestEnd: noop, token: noop, page: noop };

async function viewsPerSecondSdk(
  served: Served,
  prefetch: boolean,
  broad = false,
  hooks: typeof EVERY_HOOK | undefined = undefined,
): Promise<number> {
  const client = new IdGovClient({ baseUrl: served.baseUrl, credentials: served, hooks });
  const started = performance.now();
  let views = 0;
  const request = broad ? { pageSize: 100, expandMask: { paths: ['*' as const] } } : { pageSize: 100 };
  for await (const view of client.tasks.search(request, { prefetch })) if (view.task) views += 1;
  return views / ((performance.now() - started) / 1000);
}

/** The limit: what a hand-written loop of fetch and JSON.parse does over the same server. */
async function viewsPerSecondRaw(served: Served): Promise<number> {
  const started = performance.now();
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: served.clientId,
    client_secret: served.clientSecret,
  });
  const { access_token } = (await (
    await fetch(`${served.baseUrl}/auth/v1/token`, { method: 'POST', body: form })
  ).json()) as {
    access_token: string;
  };
  let views = 0;
  let pageToken = '';
  do {
    const response = await fetch(`${served.baseUrl}/api/v1/search/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(pageToken ? { pageSize: 100, pageToken } : { pageSize: 100 }),
    });
    const json: unknown = JSON.parse(await response.text());
    const page = json as { list: unknown[]; nextPageToken: string };
    views += page.list.length;
    pageToken = page.nextPageToken;
  } while (pageToken);
  return views / ((performance.now() - started) / 1000);
}

export async function pagingBenchmarks(): Promise<Result[]> {
  const results: Result[] = [];
  const tasks = SMALL ? 1_000 : 10_000;
  const served = await serve(tasks);
  try {
    const rounds = SMALL ? 1 : 5;
    // The fake tenant's own work is most of each page (4.5-5.5 ms of 5-6) and varies with its
    // collections, and the client's code is still warming up in the first rounds: over twelve
    // rounds one run's ratios went from 0.86 (the first two) to 1.04. Nine rounds, as for broad
    // pages, so that the median is a steady-state figure.
    const plain = await interleaved(
      SMALL ? 1 : 9,
      () => viewsPerSecondSdk(served, false),
      () => viewsPerSecondRaw(served),
      { warmUp: true, primed: true },
    );
    results.push(
      compared(
        `paging: views/s, for await over ${tasks} views (pages of 100)`,
        plain,
        'views/s',
        '>= 0.9 of fetch + JSON.parse',
        (ratio) => ratio >= 0.9,
      ),
    );
    const ahead = await interleaved(
      rounds,
      () => viewsPerSecondSdk(served, true),
      () => viewsPerSecondRaw(served),
      { warmUp: true, primed: true },
    );
    results.push({
      name: 'paging: the same with prefetch',
      value: ahead.subject,
      reference: ahead.reference,
      unit: 'views/s',
      ratio: ahead.subject / ahead.reference,
      goal: '(informative)',
      met: true,
    });
    // What hooks cost when set: the SDK with a handler for every event, against the SDK with none.
    const hooked = await interleaved(
      rounds,
      () => viewsPerSecondSdk(served, false, false, EVERY_HOOK),
      () => viewsPerSecondSdk(served, false),
      { warmUp: true, primed: true },
    );
    results.push({
      name: 'paging: the same with a no-op handler for every hook, against no hooks',
      value: hooked.subject,
      reference: hooked.reference,
      unit: 'views/s',
      ratio: hooked.subject / hooked.reference,
      goal: '(informative)',
      met: true,
    });
  } finally {
    served.child.kill();
  }

  // The broad page: 100 views with every expand path, ~550 KB, served as is by a plain server. A
  // round takes a third of a second: more rounds than for narrow pages, for a steadier median.
  const pages = SMALL ? 5 : 100;
  const broad = await start('./page-server.ts', ['--pages', String(pages)]);
  try {
    const measured = await interleaved(
      SMALL ? 1 : 9,
      () => viewsPerSecondSdk(broad, false, true),
      () => viewsPerSecondRaw(broad),
      { warmUp: true, primed: true },
    );
    results.push(
      compared(
        `paging: views/s, for await over ${pages * 100} views of broad pages (every expand path)`,
        measured,
        'views/s',
        '>= 0.9 of fetch + JSON.parse',
        (ratio) => ratio >= 0.9,
      ),
    );
  } finally {
    broad.child.kill();
  }

  // Prefetch: 20 ms of server latency and 20 ms of caller work per page, 20 pages.
  const slow = await serve(2_000, 20);
  try {
    const timed = (prefetch: boolean) => async () => {
      const client = new IdGovClient({ baseUrl: slow.baseUrl, credentials: slow });
      await client.tasks.search({ pageSize: 10 }); // token, warm connection
      const started = performance.now();
      let pages = 0;
      for await (const _ of client.tasks.search({ pageSize: 100 }, { prefetch }).pages()) {
        await sleep(20); // the caller's own work on the page
        if (++pages === 20) break;
      }
      return performance.now() - started;
    };
    const { subject, reference } = await interleaved(SMALL ? 1 : 3, timed(true), timed(false));
    results.push(
      compared(
        'prefetch: 20 pages, 20 ms latency + 20 ms work',
        { subject, reference },
        'ms',
        '<= 0.6 of no prefetch',
        (ratio) => ratio <= 0.6,
      ),
    );
  } finally {
    slow.child.kill();
  }

  // Memory: heap after 100,000 tasks against heap after the first page.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    const count = SMALL ? 5_000 : 100_000;
    const big = await serve(count);
    try {
      const client = new IdGovClient({ baseUrl: big.baseUrl, credentials: big });
      let seen = 0;
      let afterFirst = 0;
      for await (const view of client.tasks.search({ pageSize: 100 })) {
        if (view.task) seen += 1;
        if (seen === 100) {
          gc();
          afterFirst = process.memoryUsage().heapUsed;
        }
      }
      gc();
      const afterAll = process.memoryUsage().heapUsed;
      results.push({
        name: `memory: heap after ${seen} tasks`,
        value: afterAll / 2 ** 20,
        reference: afterFirst / 2 ** 20,
        unit: 'MiB',
        ratio: afterAll / afterFirst,
        goal: '<= 2x heap after the first page',
        met: afterAll / afterFirst <= 2,
      });
    } finally {
      big.child.kill();
    }
  }

  // Token: 1,000 concurrent searches on a fresh client.
  const tenant = new FakeTenant({ tasks: 10 });
  const server = await tenant.listen();
  try {
    const client = new IdGovClient({ baseUrl: server.url, credentials: tenant.client });
    await Promise.all(
      Array.from({ length: SMALL ? 100 : 1_000 }, () => client.tasks.search({ pageSize: 10 })),
    );
    results.push({
      name: `token: token requests for ${SMALL ? 100 : 1_000} concurrent searches`,
      value: tenant.stats.tokensIssued,
      unit: 'requests',
      ratio: tenant.stats.tokensIssued,
      goal: 'exactly 1',
      met: tenant.stats.tokensIssued === 1,
    });
  } finally {
    await server.close();
  }
  return results;
}
