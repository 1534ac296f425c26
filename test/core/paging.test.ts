import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { delay, HttpResponse, http, passthrough } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Page } from '../../src/core/paging/page.ts';
import { PagePromise } from '../../src/core/paging/page-promise.ts';
import { AbortError, PaginationError, RequestValidationError, resolveExpanded } from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { BASE, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const SEARCH = `${BASE}/api/v1/search/tasks`;

/** Serves `pages` (arrays of task ids) as a token chain p1 -> p2 -> ...; records request bodies. */
function pagedSearch(pages: string[][], options: { latency?: number; tokens?: string[] } = {}) {
  const bodies: Record<string, unknown>[] = [];
  const log: string[] = [];
  const tokens = options.tokens ?? pages.map((_, i) => (i + 1 < pages.length ? `p${i + 2}` : ''));
  server.use(
    tokenEndpoint().handler,
    http.post(SEARCH, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      bodies.push(body);
      const index = body.pageToken ? Number(String(body.pageToken).slice(1)) - 1 : 0;
      log.push(`start ${index + 1}`);
      request.signal.addEventListener('abort', () => log.push(`aborted ${index + 1}`));
      if (options.latency) await delay(options.latency);
      log.push(`end ${index + 1}`);
      return HttpResponse.json({
        list: (pages[index] ?? []).map((id) => ({ task: { id } })),
        nextPageToken: tokens[index] ?? '',
      });
    }),
  );
  return { bodies, log };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A full collection, in a job of its own and followed by another: a WeakRef holds its target to the
 * end of the job that made or read it, so one made before this call is cleared only then.
 */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  await settle();
  gc();
  await settle();
}

const ids = async (iterable: AsyncIterable<{ task?: { id?: string | null } | null }>) => {
  const out: (string | null | undefined)[] = [];
  for await (const view of iterable) out.push(view.task?.id);
  return out;
};

describe('task search paging', () => {
  it('awaits to the first page and iterates every task across 5 pages, through an empty one', async () => {
    const calls = pagedSearch([['a', 'b'], ['c'], [], ['d'], ['e', 'f']]);
    const client = makeClient();
    const first = await client.tasks.search({ query: 'x' });
    expect(first.list?.map((v) => v?.task?.id)).toEqual(['a', 'b']);
    expect(first.nextPageToken).toBe('p2');
    expect(await ids(client.tasks.search({ query: 'x' }))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    // every page: the same request with only the token changed
    expect(calls.bodies.slice(1)).toEqual([
      { query: 'x' },
      { query: 'x', pageToken: 'p2' },
      { query: 'x', pageToken: 'p3' },
      { query: 'x', pageToken: 'p4' },
      { query: 'x', pageToken: 'p5' },
    ]);
  });

  it('shares the awaited first page with a later iteration', async () => {
    const calls = pagedSearch([['a'], ['b']]);
    const search = makeClient().tasks.search();
    await search;
    expect(await ids(search)).toEqual(['a', 'b']);
    expect(calls.bodies).toHaveLength(2);
  });

  it('yields whole pages from pages()', async () => {
    pagedSearch([['a', 'b'], ['c']]);
    const sizes: number[] = [];
    for await (const page of makeClient().tasks.search().pages()) sizes.push(page.list?.length ?? 0);
    expect(sizes).toEqual([2, 1]);
  });

  it('throws PaginationError when the service repeats a token, after yielding what it had', async () => {
    pagedSearch([['a'], ['b'], ['c']], { tokens: ['p2', 'p2', ''] });
    const seen: string[] = [];
    const error = await caught(
      (async () => {
        for await (const view of makeClient().tasks.search()) seen.push(view.task?.id ?? '');
      })(),
    );
    expect(error).toBeInstanceOf(PaginationError);
    expect(seen).toEqual(['a', 'b']);
  });

  it('makes no further request after an early break', async () => {
    const calls = pagedSearch([['a', 'b'], ['c'], ['d']]);
    for await (const view of makeClient().tasks.search()) {
      if (view.task?.id === 'a') break;
    }
    await delay(50);
    expect(calls.bodies).toHaveLength(1);
  });

  it('answers next() calls made before the previous settled in order, across pages, then done', async () => {
    const calls = pagedSearch([['a', 'b'], [], ['c']], { latency: 10 });
    const iterator = makeClient().tasks.search()[Symbol.asyncIterator]();
    // A careless caller: five calls at once, across an empty page and past the end.
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => iterator.next()));
    expect(results.map((r) => (r.done ? 'done' : r.value.task?.id))).toEqual(['a', 'b', 'c', 'done', 'done']);
    expect(calls.bodies).toHaveLength(3);
  });

  it('ends the iteration after a failed page: the error once, then done, with no further request', async () => {
    const calls = pagedSearch([['a'], ['b'], ['c']], { tokens: ['p2', 'p2', ''] });
    const iterator = makeClient().tasks.search()[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.task?.id).toBe('a');
    expect((await iterator.next()).value?.task?.id).toBe('b');
    expect(await caught(iterator.next())).toBeInstanceOf(PaginationError);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(calls.bodies).toHaveLength(2);
  });

  it('return() and throw() close the listing, aborting a prefetched request', async () => {
    for (const close of ['return', 'throw'] as const) {
      const calls = pagedSearch([['a'], ['b'], ['c']], { latency: 40 });
      const iterator = makeClient().tasks.search({}, { prefetch: true })[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.task?.id).toBe('a');
      await delay(10); // the prefetched request reaches the service
      const oops = new Error('caller gave up');
      if (close === 'return') expect(await iterator.return()).toEqual({ value: undefined, done: true });
      else expect(await caught(iterator.throw(oops))).toBe(oops);
      expect(await iterator.next()).toEqual({ value: undefined, done: true });
      await delay(60);
      // Page 2 was prefetched and aborted, and nothing came after it.
      expect(calls.log).toEqual(['start 1', 'end 1', 'start 2', 'aborted 2', 'end 2']);
      server.resetHandlers();
    }
  });

  it('supports `await using`, closing the listing at the end of the block', async () => {
    const calls = pagedSearch([['a'], ['b']], { latency: 40 });
    {
      await using iterator = makeClient().tasks.search({}, { prefetch: true })[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.task?.id).toBe('a');
      await delay(10); // the prefetched request reaches the service
    }
    await delay(60);
    expect(calls.log).toEqual(['start 1', 'end 1', 'start 2', 'aborted 2', 'end 2']);
  });

  it('prefetches the next page while the caller works, and aborts it on break', async () => {
    const calls = pagedSearch([['a'], ['b'], ['c']], { latency: 30 });
    for await (const page of makeClient().tasks.search({}, { prefetch: true }).pages()) {
      const id = page.list?.[0]?.task?.id;
      await delay(60); // the caller's work on this page
      calls.log.push(`done ${id}`);
      if (id === 'b') break;
    }
    await delay(60);
    // Page 2 was requested while the caller still worked on page 1 (without prefetch: after 'done a').
    expect(calls.log.indexOf('start 2')).toBeLessThan(calls.log.indexOf('done a'));
    // Page 3 was requested ahead too; nothing after it.
    expect(calls.log.indexOf('start 3')).toBeLessThan(calls.log.indexOf('done b'));
    expect(calls.bodies).toHaveLength(3);
  });

  // The test above breaks after the last page has arrived: here the prefetched one is still on its way.
  it('pages(): a break aborts the prefetched request still in flight, and nothing follows', async () => {
    const calls = pagedSearch([['a'], ['b'], ['c']], { latency: 40 });
    for await (const page of makeClient().tasks.search({}, { prefetch: true }).pages()) {
      expect(page.list?.[0]?.task?.id).toBe('a');
      await delay(10); // the prefetched request reaches the service
      break;
    }
    await delay(60);
    expect(calls.log).toEqual(['start 1', 'end 1', 'start 2', 'aborted 2', 'end 2']);
  });

  /**
   * A loopback server answering each page after 300 ms with one task and a next token, recording
   * whether each request was answered or aborted (msw does not surface a client's abort to its
   * handler, so these tests run against a real server).
   */
  async function slowPages() {
    const events: string[] = [];
    let served = 0;
    const slow = createServer((_request, response) => {
      const page = ++served;
      events.push(`start ${page}`);
      response.on('close', () =>
        events.push(`${response.writableFinished ? 'answered' : 'aborted'} ${page}`),
      );
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ list: [{ task: { id: `t${page}` } }], nextPageToken: `p${page + 1}` }));
      }, 300);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const { port } = slow.address() as AddressInfo;
    server.use(http.all(`http://127.0.0.1:${port}/*`, () => passthrough()));
    const client = makeClient({ baseUrl: `http://127.0.0.1:${port}`, credentials: { token: 't' } });
    const close = () => {
      slow.closeAllConnections();
      slow.close();
    };
    return { client, events, close };
  }

  it('aborts the prefetched request when the loop ends early (real loopback socket)', async () => {
    const { client, events, close } = await slowPages();
    try {
      for await (const _ of client.tasks.search({}, { prefetch: true })) {
        await delay(150); // long enough for the prefetch to reach the server
        break;
      }
      await delay(100);
      expect(events).toEqual(['start 1', 'answered 1', 'start 2', 'aborted 2']);
    } finally {
      close();
    }
  });

  it("without prefetch, the caller's signal aborts a later page's request in flight (real loopback socket)", async () => {
    const { client, events, close } = await slowPages();
    try {
      const controller = new AbortController();
      const seen: unknown[] = [];
      const error = await caught(
        (async () => {
          for await (const view of client.tasks.search({}, { signal: controller.signal })) {
            seen.push(view.task?.id);
            if (seen.length > 2) break; // the abort did not reach page 2's request
            setTimeout(() => controller.abort(), 150); // while page 2 is on its way
          }
        })(),
      );
      await delay(50);
      expect(error).toBeInstanceOf(AbortError);
      expect(seen).toEqual(['t1']);
      expect(events).toEqual(['start 1', 'answered 1', 'start 2', 'aborted 2']);
    } finally {
      close();
    }
  });

  // A broad page is about 0.9 MB of objects: one the loop is done with must not live on while the
  // next is fetched, or the young-generation collector, which runs in that wait, copies it.
  it('lets go of a finished page before fetching the next one, through items and through pages()', async () => {
    let watched: WeakRef<object> | undefined;
    const alive: boolean[] = [];
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, async ({ request }) => {
        const { pageToken } = (await request.json()) as { pageToken?: string };
        const index = pageToken ? Number(pageToken.slice(1)) : 1;
        if (watched) {
          await collectGarbage();
          alive.push(watched.deref() !== undefined);
        }
        return HttpResponse.json({
          list: [{ task: { id: `t${index}a` } }, { task: { id: `t${index}b` } }],
          nextPageToken: index < 4 ? `p${index + 1}` : '',
        });
      }),
    );
    const client = makeClient();
    // The first page stays with the listing (awaiting it later gives it again): watch the later ones.
    for await (const view of client.tasks.search({ query: 'x' })) {
      if (view.task?.id?.endsWith('a') && view.task.id !== 't1a') watched = new WeakRef(view);
    }
    watched = undefined;
    // One page a call, so that no variable of this test holds the page while the next is fetched.
    const pages = client.tasks.search({ query: 'x' }).pages();
    const step = async () => {
      const { done, value } = await pages.next();
      if (value && value.nextPageToken !== 'p2') watched = new WeakRef(value);
      return !done;
    };
    while (await step());
    expect(alive).toEqual([false, false, false, false]);
  });

  // With prefetch the next page is requested as soon as a page arrives, so the wait that matters is the
  // one after the caller finished a page: page n-1 must be gone while page n is still on its way.
  it('with prefetch, lets go of a finished page while the prefetched one is awaited', async () => {
    let watched = new Map<number, WeakRef<object>>();
    const alive: (boolean | string)[] = [];
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, async ({ request }) => {
        const { pageToken } = (await request.json()) as { pageToken?: string };
        const index = pageToken ? Number(pageToken.slice(1)) : 1;
        // Page 1 stays with the listing; from page 3 on, the caller is done with page index-1 by the
        // time it waits for this one: a few turns later.
        if (index >= 3) {
          for (let turn = 0; turn < 3; turn += 1) await settle();
          await collectGarbage();
          const ref = watched.get(index - 1);
          alive.push(ref ? ref.deref() !== undefined : `page ${index - 1} not watched`);
        }
        return HttpResponse.json({
          list: [{ task: { id: `t${index}a` } }, { task: { id: `t${index}b` } }],
          nextPageToken: index < 5 ? `p${index + 1}` : '',
        });
      }),
    );
    const client = makeClient();
    for await (const view of client.tasks.search({ query: 'x' }, { prefetch: true })) {
      const id = view.task?.id ?? '';
      if (id.endsWith('a')) watched.set(Number(id.slice(1, -1)), new WeakRef(view));
    }
    watched = new Map();
    // One page a call, so that no variable of this test holds the page while the next is fetched.
    const pages = client.tasks.search({ query: 'x' }, { prefetch: true }).pages();
    const step = async () => {
      const { done, value } = await pages.next();
      if (value) watched.set(Number(value.list?.[0]?.task?.id?.slice(1, -1)), new WeakRef(value));
      return !done;
    };
    while (await step());
    expect(alive).toEqual([false, false, false, false, false, false]);
  });

  it('clamps page sizes to 10..100 and leaves 0 to the service', async () => {
    const calls = pagedSearch([['a']]);
    const client = makeClient();
    for (const pageSize of [5, 10, 55, 100, 500, 0, -5]) await client.tasks.search({ pageSize });
    // Below 10 is 10 (negative too, as the service reads it); 0 leaves the service default of 25.
    expect(calls.bodies.map((b) => b.pageSize)).toEqual([10, 10, 55, 100, 100, undefined, 10]);
  });

  it('rejects a bad request before anything is sent, naming the field', async () => {
    const calls = pagedSearch([['a']]);
    const client = makeClient();
    const bad = [{ pageSize: 'ten' }, { taskStates: 3 }, { createdAfter: 'yesterday' }, { pageSize: 2.5 }];
    for (const request of bad) {
      // Nothing throws at the call: the PagePromise rejects when used, by await or by iteration.
      // @ts-expect-error: deliberately wrong types
      const search = client.tasks.search(request);
      const error = await caught(search);
      expect(error).toBeInstanceOf(RequestValidationError);
      expect(error.message).toMatch(new RegExp(`Invalid task search: ${Object.keys(request)[0]}:`));
      expect(await caught(search.toArray())).toBe(error);
    }
    expect(calls.bodies).toHaveLength(0);
  });
});

describe('expanded objects', () => {
  it('resolves a view JSONPATH fields against its own page', async () => {
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, async ({ request }) => {
        const body = (await request.json()) as { pageToken?: string };
        const second = body.pageToken === 'p2';
        return HttpResponse.json({
          list: [
            {
              task: { id: second ? 't2' : 't1' },
              appPath: '$.expanded[0]',
              approversPath: '$.expanded[1,2]',
              userPath: '',
            },
          ],
          expanded: [
            { '@type': 'type.googleapis.com/svc.api.app.v1.App', id: second ? 'app-2' : 'app-1' },
            { '@type': 'type.googleapis.com/svc.api.user.v1.User', id: 'u-1' },
            { '@type': 'type.googleapis.com/svc.api.future.v1.Thing', id: 'x' },
          ],
          nextPageToken: second ? '' : 'p2',
        });
      }),
    );
    const apps: unknown[] = [];
    for await (const view of makeClient().tasks.search({
      expandMask: { paths: ['app_id', 'approver_ids'] },
    })) {
      apps.push(resolveExpanded(view, 'appPath')?.id);
      expect(resolveExpanded(view, 'approversPath').map((o) => o['@type'])).toEqual([
        'type.googleapis.com/svc.api.user.v1.User',
        'type.googleapis.com/svc.api.future.v1.Thing',
      ]);
      expect(resolveExpanded(view, 'userPath')).toBeUndefined();
      expect(resolveExpanded(view, 'entitlementsPath')).toEqual([]);
    }
    expect(apps).toEqual(['app-1', 'app-2']);
  });
});

describe('expanded objects: the link from a view to its page', () => {
  it('is invisible: keys, JSON, spreads, equality and inspect show the view as sent', async () => {
    const sent = { task: { id: 't1' }, appPath: '$.expanded[0]' };
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, () =>
        HttpResponse.json({
          list: [sent],
          expanded: [{ '@type': 'type.googleapis.com/c1.api.app.v1.App', id: 'app-secret-name' }],
        }),
      ),
    );
    const [view] = await makeClient()
      .tasks.search({ expandMask: { paths: ['app_id'] } })
      .toArray();
    if (!view) throw new Error('no view');
    expect(resolveExpanded(view, 'appPath')?.id).toBe('app-secret-name');
    expect(Object.keys(view)).toEqual(['task', 'appPath']);
    expect(JSON.parse(JSON.stringify(view))).toEqual(sent);
    expect(Reflect.ownKeys({ ...view })).toEqual(['task', 'appPath']);
    expect(Object.assign({}, view)).toStrictEqual(sent);
    expect(inspect(view, { depth: 5 })).not.toContain('app-secret-name');
  });
});

describe('finding rules', () => {
  it('gets a rule by id, percent-encoding it', async () => {
    const paths: string[] = [];
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/*`, ({ request }) => {
        paths.push(new URL(request.url).pathname);
        return HttpResponse.json({ transformationRule: { id: 'a/b c', evaluationOrder: 2 } });
      }),
    );
    const rule = await makeClient().findingRules.get('a/b c');
    expect(rule?.evaluationOrder).toBe(2);
    expect(paths).toEqual(['/api/v1/findings/transformation-rules/a%2Fb%20c']);
  });

  it('rejects an empty, blank or dot id before any request', async () => {
    server.use(tokenEndpoint().handler);
    const client = makeClient();
    for (const id of ['', '  ', '.', '..']) {
      await expect(client.findingRules.get(id)).rejects.toThrow(RequestValidationError);
    }
  });

  it('returns null when the service answers without a rule', async () => {
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/findings/transformation-rules/:id`, () =>
        HttpResponse.json({ transformationRule: null }),
      ),
    );
    expect(await makeClient().findingRules.get('gone')).toBeNull();
  });
});

describe('app entitlements', () => {
  it('pages with page_size and page_token in the query', async () => {
    const queries: string[] = [];
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/apps/:appId/entitlements`, ({ request, params }) => {
        const url = new URL(request.url);
        queries.push(`${params.appId} ${url.search}`);
        const token = url.searchParams.get('page_token');
        return HttpResponse.json({
          list: [{ appEntitlement: { id: token ? 'e-2' : 'e-1', appId: 'app 1' } }],
          nextPageToken: token ? '' : 'next',
        });
      }),
    );
    const found: unknown[] = [];
    for await (const item of makeClient().appEntitlements.list('app 1', { pageSize: 3 })) {
      found.push(item.appEntitlement?.id);
    }
    expect(found).toEqual(['e-1', 'e-2']);
    expect(queries).toEqual(['app 1 ?page_size=10', 'app 1 ?page_size=10&page_token=next']);
  });

  it('resumes from a saved page token, and treats a negative page size as 10', async () => {
    const queries: string[] = [];
    server.use(
      tokenEndpoint().handler,
      http.get(`${BASE}/api/v1/apps/:appId/entitlements`, ({ request }) => {
        const url = new URL(request.url);
        queries.push(url.search);
        const token = url.searchParams.get('page_token');
        return HttpResponse.json({
          list: [{ appEntitlement: { id: token === 'saved' ? 'e-5' : 'e-6', appId: 'a' } }],
          nextPageToken: token === 'saved' ? 'after-saved' : '',
        });
      }),
    );
    const found: unknown[] = [];
    for await (const item of makeClient().appEntitlements.list('a', { pageSize: -5, pageToken: 'saved' })) {
      found.push(item.appEntitlement?.id);
    }
    expect(found).toEqual(['e-5', 'e-6']);
    expect(queries).toEqual(['?page_size=10&page_token=saved', '?page_size=10&page_token=after-saved']);
  });

  it('rejects an empty app id when the listing is used, sending nothing', async () => {
    const listing = makeClient().appEntitlements.list('');
    const error = await caught(listing);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toMatch(/appId must be a non-empty string/);
  });
});

// `pages()` is a hand-written loop over `pagesWithResponse()` (so that no loop variable holds a page
// through the next fetch): a careless caller must see what the `for await` it replaced gave.
describe('pages() ends every call as `for await (const { data } of pagesWithResponse()) yield data` does', () => {
  type P = Page<string>;
  const response = {
    status: 200,
    headers: new Headers(),
    requestId: undefined,
    attempts: 1,
    bytes: 0,
    durationMs: 0,
  };
  /** A listing of pages ['a'], [], ['c'] (page 3 fails with `failing`); logs requests and the close. */
  const listing = (log: string[], prefetch: boolean, failing: boolean) =>
    new PagePromise<P, string>(
      () => ({
        startToken: undefined,
        fetchPage: async (token, signal) => {
          const n = token ? Number(token.slice(1)) : 1;
          log.push(`request ${n}`);
          signal?.addEventListener('abort', () => log.push(`closed while ${n} was last requested`));
          await delay(5);
          if (failing && n === 3) throw new Error('page 3 failed');
          const data = { list: [['a'], [], ['c']][n - 1], nextPageToken: n < 3 ? `p${n + 1}` : '' };
          return { data, response };
        },
      }),
      undefined,
      { prefetch },
    );
  async function* reference(listing: PagePromise<P, string>): AsyncGenerator<P, void, undefined> {
    for await (const { data } of listing.pagesWithResponse()) yield data;
  }
  // What each call gave, and what had happened when it settled (a closed listing has aborted its
  // prefetched request by the time return() resolves).
  const outcome = (promise: Promise<IteratorResult<P, void>>, log: readonly string[]) =>
    promise.then(
      (result) => ({
        ...(result.done ? { done: true, value: result.value } : { done: false, list: result.value.list }),
        log: log.join(', '),
      }),
      (error: Error) => ({ error: error.message, log: log.join(', ') }),
    );
  type Pages = AsyncGenerator<P, void, undefined>;
  const cases: [string, (it: Pages) => Promise<IteratorResult<P, void>>[], boolean?][] = [
    [
      'five next() at once, across an empty page and past the end',
      (it) => [1, 2, 3, 4, 5].map(() => it.next()),
    ],
    ['return() before the first next(), then next()', (it) => [it.return(), it.next()]],
    [
      'throw() before the first next(), then next()',
      (it) => [it.throw(new Error('caller gave up')), it.next()],
    ],
    ['return() while a next() is pending, then next()', (it) => [it.next(), it.return(), it.next()]],
    ['return(value) at a page', (it) => [it.next(), it.return('v' as never)]],
    ['return() twice', (it) => [it.next(), it.return(), it.return()]],
    ['throw() at a page, then next()', (it) => [it.next(), it.throw(new Error('caller gave up')), it.next()]],
    [
      'a failed page: the error once, then done; return() afterwards',
      (it) => [1, 2, 3, 4].map(() => it.next()).concat(it.return()),
      true,
    ],
  ];
  for (const [name, calls, failing = false] of cases) {
    for (const prefetch of [false, true]) {
      it(`${name}${prefetch ? ' (prefetch)' : ''}`, async () => {
        const run = async (pages: (listing: PagePromise<P, string>) => Pages) => {
          const log: string[] = [];
          const results = await Promise.all(
            calls(pages(listing(log, prefetch, failing))).map((call) => outcome(call, log)),
          );
          await delay(20); // a request made after the end would be logged by now
          return { results, log };
        };
        const expected = await run(reference);
        expect(await run((listing) => listing.pages())).toEqual(expected);
      });
    }
  }

  it('throw() rejects with the error it was given even when closing the pages fails; return() with the failure', async () => {
    class FailingClose extends PagePromise<P, string> {
      override async *pagesWithResponse() {
        try {
          yield { data: { list: ['a'], nextPageToken: 'p2' }, response };
        } finally {
          // biome-ignore lint/correctness/noUnsafeFinally: a source whose closing fails is the case under test
          throw new Error('closing failed');
        }
      }
    }
    const source = () => ({ startToken: undefined, fetchPage: () => Promise.reject(new Error('unused')) });
    for (const pages of [(l: PagePromise<P, string>) => l.pages(), reference]) {
      const thrown = pages(new FailingClose(source, undefined, {}));
      await thrown.next();
      await expect(thrown.throw(new Error('caller gave up'))).rejects.toThrow('caller gave up');
      const returned = pages(new FailingClose(source, undefined, {}));
      await returned.next();
      await expect(returned.return()).rejects.toThrow('closing failed');
    }
  });
});
