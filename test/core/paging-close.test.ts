/**
 * Closing a listing without prefetch, every way a caller can, against a real loopback server: when
 * the close settles, no page request is still open and none follows, and no timer or socket of the
 * client is left behind. Without prefetch a page's request carries the caller's signal alone (no
 * listing-owned signal to abort it), which is safe only because a request runs inside one step of
 * the listing and a close waits for that step; these tests hold that to account.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  type Credentials,
  IdGovClient,
  InternalServerError,
  type PagingOptions,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { expectNoHandlesLeft, type Handles, handles } from '../helpers/handles.ts';
import { answer, type HostileServer, hostileServer } from '../helpers/hostile-server.ts';

const TOKEN_PATH = '/auth/v1/token';

let servers: HostileServer[] = [];
let baseline: Handles;

beforeEach(() => {
  servers = [];
  baseline = handles();
});

afterEach(async () => {
  for (const server of servers) await server.close();
  // The client must hold no timer (a retry backoff, an empty-page wait, a timeout) or socket of its own.
  await expectNoHandlesLeft(baseline);
});

type PageAnswer = (page: number, response: ServerResponse) => void;

/**
 * A tenant whose page N is answered by `page` (default: one task `tN`, next token, after 60 ms),
 * recording when each page's request starts and ends (answered, or cut off by the client).
 */
async function tenant(page?: PageAnswer) {
  const events: string[] = [];
  let pages = 0;
  const server = await hostileServer((request, response) => {
    if (request.url === TOKEN_PATH) {
      answer(response, { access_token: 'at', token_type: 'Bearer', expires_in: 600 });
      return;
    }
    const n = ++pages;
    events.push(`start ${n}`);
    response.on('close', () => events.push(`${response.writableFinished ? 'answered' : 'cut'} ${n}`));
    if (page) page(n, response);
    else
      setTimeout(() => {
        if (!response.destroyed)
          answer(response, { list: [{ task: { id: `t${n}` } }], nextPageToken: `p${n + 1}` });
      }, 60);
  });
  servers.push(server);
  const client = (options: Partial<ConstructorParameters<typeof IdGovClient>[0]> = {}) =>
    new IdGovClient({
      baseUrl: server.url,
      credentials: { clientId: 'sync@tenant.test/pcc', clientSecret: 'cs' } as Credentials,
      maxRetries: 0,
      ...options,
    });
  /** Started page requests not yet answered or cut off. */
  const open = () =>
    events.filter((e) => e.startsWith('start')).length - events.filter((e) => !e.startsWith('start')).length;
  return { events, client, open };
}

/** Longer than a page takes: a request the close let run would show in the events by then. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 150));

const search = (client: IdGovClient, options: PagingOptions & { signal?: AbortSignal } = {}) =>
  client.tasks.search({}, options);

describe('closing a listing without prefetch leaves nothing running', () => {
  // A close made while a page is on its way is queued behind that page, as an async generator's is:
  // today the page is answered and delivered first. A close that cut it short would be fine too;
  // what matters is that nothing is left open once the close settles, and nothing follows.
  const page2 = expect.stringMatching(/^(answered|cut) 2$/);
  const settled = (promise: Promise<unknown>) => promise.catch(() => undefined);

  for (const close of ['return', 'throw'] as const) {
    it(`items: ${close}() while the next page is on its way leaves nothing open, and nothing follows`, async () => {
      const { events, client, open } = await tenant();
      const iterator = search(client())[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.task?.id).toBe('t1');
      const pending = settled(iterator.next()); // page 2 is requested now
      const oops = new Error('caller gave up');
      if (close === 'return') expect(await iterator.return()).toEqual({ value: undefined, done: true });
      else expect(await caught(iterator.throw(oops))).toBe(oops);
      await pending;
      expect(await iterator.next()).toEqual({ value: undefined, done: true });
      await pause();
      expect(open()).toBe(0);
      expect(events).toEqual(['start 1', 'answered 1', 'start 2', page2]);
    });
  }

  for (const which of ['pages', 'pagesWithResponse'] as const) {
    it(`${which}(): return() while the next page is on its way leaves nothing open, and nothing follows`, async () => {
      const { events, client, open } = await tenant();
      const pages = search(client())[which]();
      await pages.next();
      const pending = settled(pages.next());
      expect(await pages.return()).toEqual({ value: undefined, done: true });
      await pending;
      expect((await pages.next()).done).toBe(true);
      await pause();
      expect(open()).toBe(0);
      expect(events).toEqual(['start 1', 'answered 1', 'start 2', page2]);
    });
  }

  it('`await using` leaving its block with a next() unsettled leaves nothing open, and nothing follows', async () => {
    const { events, client, open } = await tenant();
    let pending: Promise<unknown> | undefined;
    {
      await using iterator = search(client())[Symbol.asyncIterator]();
      await iterator.next();
      pending = settled(iterator.next());
    }
    await pending;
    await pause();
    expect(open()).toBe(0);
    expect(events).toEqual(['start 1', 'answered 1', 'start 2', page2]);
  });

  it('toArray({ limit }) and a break after an awaited first page send one request', async () => {
    const { events, client } = await tenant();
    expect(await search(client()).toArray({ limit: 1 })).toHaveLength(1);
    const listing = search(client());
    expect((await listing).list).toHaveLength(1);
    for await (const _ of listing) break; // the awaited first page, shared: no request
    await pause();
    expect(events).toEqual(['start 1', 'answered 1', 'start 2', 'answered 2']);
  });

  it('a failed page ends the listing with its error and nothing after it', async () => {
    const { events, client, open } = await tenant((n, response) =>
      n === 1
        ? answer(response, { list: [{ task: { id: 't1' } }], nextPageToken: 'p2' })
        : answer(response, {}, 500),
    );
    const seen: unknown[] = [];
    const error = await caught(
      (async () => {
        for await (const view of search(client())) seen.push(view.task?.id);
      })(),
    );
    expect(error).toBeInstanceOf(InternalServerError);
    expect(seen).toEqual(['t1']);
    expect(open()).toBe(0);
    expect(events).toEqual(['start 1', 'answered 1', 'start 2', 'answered 2']);
  });

  it("the caller's abort during a retry's backoff ends the listing at once, with no timer left", async () => {
    const controller = new AbortController();
    const { events, client, open } = await tenant((n, response) => {
      if (n === 1) return answer(response, { list: [{ task: { id: 't1' } }], nextPageToken: 'p2' });
      setTimeout(() => controller.abort(), 20); // while the client waits the 30 s the service asked for
      answer(response, {}, 503, { 'retry-after': '30' });
    });
    const seen: unknown[] = [];
    const error = await caught(
      (async () => {
        for await (const view of search(client({ maxRetries: 1 }), { signal: controller.signal }))
          seen.push(view.task?.id);
      })(),
    );
    expect(error).toBeInstanceOf(AbortError);
    expect(seen).toEqual(['t1']);
    expect(open()).toBe(0);
    expect(events).toEqual(['start 1', 'answered 1', 'start 2', 'answered 2']);
  });

  it("the caller's abort during an empty-page wait ends the listing at once, with no timer left", async () => {
    const controller = new AbortController();
    const { events, client } = await tenant((n, response) => {
      // The 12th empty page in a row is asked for only after a 100 ms wait: abort within it.
      if (n === 11) setTimeout(() => controller.abort(), 20);
      answer(response, { list: [], nextPageToken: `p${n + 1}` });
    });
    const error = await caught(search(client(), { signal: controller.signal }).toArray());
    expect(error).toBeInstanceOf(AbortError);
    expect(error.message).toContain('while it waited after empty pages');
    expect(events.filter((e) => e.startsWith('start'))).toHaveLength(11);
  });
});
