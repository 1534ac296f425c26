import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  InternalServerError,
  type Logger,
  RateLimitError,
  ResponseValidationError,
} from '../../src/index.ts';
import { caught } from '../helpers/caught.ts';
import { BASE, makeClient, tokenEndpoint, useMockServer } from '../helpers/msw.ts';

const server = useMockServer();
const SEARCH = `${BASE}/api/v1/search/tasks`;

function answerSearch(body: string | null, init: ResponseInit = {}) {
  let calls = 0;
  server.use(
    tokenEndpoint().handler,
    http.post(SEARCH, () => {
      calls += 1;
      return new HttpResponse(body, { headers: { 'content-type': 'application/json' }, ...init });
    }),
  );
  return () => calls;
}

async function searchError(body: string | null, init: ResponseInit = {}) {
  answerSearch(body, init);
  return caught(makeClient({ maxRetries: 0 }).tasks.search());
}

describe('hostile answers give a typed error with the raw body, never a crash, hang or silent empty result', () => {
  it('truncated JSON', async () => {
    const error = await searchError('{"list":[{"task":{"id":"t-1"');
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(/not JSON \(truncated\?\)/);
    expect(error.rawBody).toBe('{"list":[{"task":{"id":"t-1"');
  });

  it('a 200 answer cut short is asked for again, as a broken connection is, within the retries', async () => {
    let calls = 0;
    const page = '{"list":[{"task":{"id":"t-1"}}],"nextPageToken":""}';
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, () => {
        calls += 1;
        const body = calls === 1 ? page.slice(0, 20) : page;
        return new HttpResponse(body, { headers: { 'content-type': 'application/json' } });
      }),
    );
    const lines: string[] = [];
    const logger: Logger = {
      error: () => {},
      warn: (m) => void lines.push(m),
      info: () => {},
      debug: () => {},
    };
    const views = await makeClient({ maxRetries: 2, logger }).tasks.search().toArray();
    expect(views.map((view) => view.task?.id)).toEqual(['t-1']);
    expect(calls).toBe(2);
    expect(lines.join('\n')).toMatch(/not JSON \(truncated\?\): asking again \(retry 1 of 2\)/);
  });

  it('a body that stays cut short: every retry spent, then the typed error with the raw body', async () => {
    const calls = answerSearch('{"list":[{"task":');
    const error = await caught(makeClient({ maxRetries: 2, logLevel: 'off' }).tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.rawBody).toBe('{"list":[{"task":');
    expect(calls()).toBe(3);
  });

  it('a body of the wrong shape: the message says so once, prefixed once, with the field', async () => {
    const error = await searchError('{"list":5}');
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(
      /^@idgov\/sdk: The task search response does not match the API: list: expected array, received integer\./,
    );
    expect(error.message.match(/@idgov\/sdk: /g)).toHaveLength(1);
    expect(error.rawBody).toBe('{"list":5}');
  });

  it('an HTML page with status 200', async () => {
    const html = '<!doctype html><title>Sign in</title><p>Please log in';
    const error = await searchError(html, { headers: { 'content-type': 'text/html' } });
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(/HTML page/);
    expect(error.rawBody).toBe(html);
  });

  it('an HTML error page with status 502, after retrying', async () => {
    answerSearch('<html><body>Bad Gateway</body></html>', {
      status: 502,
      headers: { 'content-type': 'text/html' },
    });
    const error = await caught(makeClient({ maxRetries: 1 }).tasks.search());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toBe('<html><body>Bad Gateway</body></html>');
  });

  it('a wrong content type on valid JSON is read as JSON (documented fallback)', async () => {
    answerSearch('{"list":[{"task":{"id":"t-1"}}],"nextPageToken":""}', {
      headers: { 'content-type': 'text/plain' },
    });
    const page = await makeClient().tasks.search();
    expect(page.list?.[0]?.task?.id).toBe('t-1');
  });

  it('a 200 with an error body is not taken for an empty last page', async () => {
    const body = '{"code":13,"message":"internal error","details":[]}';
    const error = await searchError(body);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toMatch(/an error body with status 200/);
    expect(error.rawBody).toBe(body);
  });

  it('a page without list but with a token is an empty page, and paging goes on', async () => {
    let n = 0;
    server.use(
      tokenEndpoint().handler,
      http.post(SEARCH, () =>
        HttpResponse.json(
          ++n === 1 ? { nextPageToken: 'p2' } : { list: [{ task: { id: 't-2' } }], nextPageToken: '' },
        ),
      ),
    );
    const ids: unknown[] = [];
    for await (const view of makeClient().tasks.search()) ids.push(view.task?.id);
    expect(ids).toEqual(['t-2']);
  });

  it('a nextPageToken that is not a string', async () => {
    const error = await searchError('{"list":[],"nextPageToken":42}');
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.path).toBe('nextPageToken');
    expect(error.message).toMatch(/nextPageToken: expected string, received integer/);
  });

  it('a list that is not an array', async () => {
    const error = await searchError('{"list":{"task":{}},"nextPageToken":""}');
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.path).toBe('list');
  });

  it('a page far larger than asked is delivered whole, with a warning (documented fallback)', async () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ task: { id: `t-${i}` } }));
    answerSearch(JSON.stringify({ list, nextPageToken: '' }));
    const warnings: string[] = [];
    const logger: Logger = { error() {}, warn: (m) => warnings.push(m), info() {}, debug() {} };
    let count = 0;
    for await (const _ of makeClient({ logger, logLevel: 'warn' }).tasks.search({ pageSize: 10 })) count += 1;
    expect(count).toBe(5000);
    expect(warnings).toEqual([
      '[@idgov/sdk] task search: a page of 5000 items, more than the 100 the API allows',
    ]);
  });

  it('a Retry-After of a day is raised at once, not slept', async () => {
    const calls = answerSearch('{"message":"slow down"}', {
      status: 429,
      headers: { 'retry-after': '86400' },
    });
    const started = Date.now();
    const error = await caught(makeClient().tasks.search());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(calls()).toBe(1);
  });

  it('an empty 200 body', async () => {
    const error = await searchError('');
    expect(error).toBeInstanceOf(ResponseValidationError);
  });
});

describe('hostile token answers', () => {
  function tokens(answer: () => Response) {
    let issued = 0;
    server.use(
      http.post(`${BASE}/auth/v1/token`, () => {
        issued += 1;
        return answer();
      }),
      http.post(SEARCH, () => HttpResponse.json({ list: [], nextPageToken: '' })),
    );
    return () => issued;
  }

  it('without expires_in, the token is kept for 5 minutes (documented fallback)', async () => {
    const issued = tokens(() => HttpResponse.json({ access_token: 'a', token_type: 'Bearer' }));
    const client = makeClient();
    await client.tasks.search();
    await client.tasks.search();
    expect(issued()).toBe(1);
  });

  it('with expires_in 0, the token serves only the request that fetched it (documented fallback)', async () => {
    const issued = tokens(() =>
      HttpResponse.json({ access_token: 'a', token_type: 'Bearer', expires_in: 0 }),
    );
    const client = makeClient();
    await client.tasks.search();
    await client.tasks.search();
    expect(issued()).toBe(2);
  });

  it('without access_token, a ResponseValidationError that does not leak what else it held', async () => {
    tokens(() => HttpResponse.json({ refresh_token: 'rt-secret', token_type: 'Bearer' }));
    const error = await caught(makeClient().tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.path).toBe('access_token');
    expect(error.rawBody).not.toContain('rt-secret');
  });

  it('a malformed token_type with a token: no part of the body is kept', async () => {
    tokens(() => HttpResponse.json({ access_token: 'at-secret', token_type: { kind: 'Bearer' } }));
    const error = await caught(makeClient().tasks.search());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.rawBody).toMatch(/^\[redacted: token endpoint answer of \d+ characters\]$/);
    expect(error.rawBody).not.toContain('at-secret');
  });
});
