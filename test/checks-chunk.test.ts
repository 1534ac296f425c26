import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { BASE, makeClient, tokenEndpoint, useMockServer } from './helpers/msw.ts';

// The generated checks' chunk never loads: a browser fetching it over a connection that hangs (module
// loads have no timeout). The answer in hand must not wait for it: zod parses it instead.
vi.mock('../schemas/checks.generated.ts', () => new Promise(() => {}));

const server = useMockServer();

/** Serves one page; resolves once it has been answered. */
function answering(): Promise<void> {
  return new Promise((answered) =>
    server.use(
      tokenEndpoint().handler,
      http.post(`${BASE}/api/v1/search/tasks`, () => {
        setTimeout(answered, 50); // once the answer has been read
        return HttpResponse.json({ list: [{ task: { id: 't1', type: { grant: {} } } }], nextPageToken: '' });
      }),
    ),
  );
}

describe('a checks chunk that stalls', () => {
  it('holds an answered call at most a second, then zod parses it, with the same result', async () => {
    answering();
    // Without the bound this waits forever (the test's timeout fails it).
    const page = await makeClient().tasks.search();
    expect(page.list?.[0]?.task?.type).toEqual({ grant: {}, $kind: 'grant' });
  });

  it('holds it no longer once the caller aborts', async () => {
    const answered = answering();
    const controller = new AbortController();
    // A listing sends nothing until used: `then` sends it.
    const call = makeClient()
      .tasks.search({}, { signal: controller.signal })
      .then(
        () => 'settled',
        () => 'settled',
      );
    await answered; // the answer is in; the checks are not
    controller.abort();
    expect(await Promise.race([call, delay(300).then(() => 'pending')])).toBe('settled');
  });
});
