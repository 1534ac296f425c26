/**
 * Preloaded into each documentation snippet run by scripts/check-snippets.ts
 * (`node --import`): requests to the documentation's example tenant (`https://acme.example.com`)
 * go to the fake tenant the checker started on loopback, so a snippet runs as written.
 */
const example = 'https://acme.example.com';
const fake = process.env.SNIPPET_FAKE_TENANT_URL ?? '';
const realFetch = globalThis.fetch;

globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  if (!request.url.startsWith(`${example}/`)) return realFetch(request);
  const body = ['GET', 'HEAD'].includes(request.method) ? undefined : await request.arrayBuffer();
  const { method, headers, redirect, signal } = request;
  return realFetch(fake + request.url.slice(example.length), { method, headers, body, redirect, signal });
};
