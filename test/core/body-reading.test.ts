/**
 * How an answer's body is read: decoded as its chunks arrive, and scanned for a `__proto__` key
 * piece by piece. Whatever the chunks a connection splits a body into (inside a key, inside a
 * multi-byte character, inside the BOM), the client sees what one read of the whole body gives.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayNameProto, ProtoHintScan } from '../../src/core/validation/proto-keys.ts';
import { IdGovClient } from '../../src/index.ts';

const BASE = 'https://tenant.test';
const encoder = new TextEncoder();

/** A client whose `fetch` answers the search with `body`, cut into chunks at `cuts` (byte offsets). */
function clientAnswering(body: Uint8Array, cuts: readonly number[]) {
  const fetch: typeof globalThis.fetch = async (input) => {
    if (new Request(input).url.endsWith('/auth/v1/token')) {
      return Response.json({ access_token: 'tok', token_type: 'Bearer', expires_in: 600 });
    }
    const edges = [0, ...cuts, body.byteLength];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i < edges.length; i += 1) controller.enqueue(body.slice(edges[i - 1], edges[i]));
        controller.close();
      },
    });
    return new Response(stream, { headers: { 'content-type': 'application/json' } });
  };
  return new IdGovClient({
    baseUrl: BASE,
    credentials: { clientId: 'a@tenant.test/pcc', clientSecret: 's' },
    fetch,
  });
}

describe('a body read in chunks', () => {
  for (const [how, key] of [
    ['written plainly', '__proto__'],
    ['written with escapes', '\\u005f_proto\\u005F_'],
    ['written with every letter escaped', '\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f'],
  ] as const) {
    it(`drops a "__proto__" key ${how} wherever a chunk boundary falls inside it`, async () => {
      const raw = `{"list":[{"task":{"id":"t1","data":{"${key}":{"polluted":true}}}}],"nextPageToken":""}`;
      const bytes = encoder.encode(raw);
      const start = raw.indexOf(key);
      for (let cut = start; cut <= start + key.length; cut += 1) {
        const page = await clientAnswering(bytes, [cut]).tasks.search();
        const data = page.list?.[0]?.task?.data as object;
        expect(Object.hasOwn(data, '__proto__'), `cut at ${cut - start}`).toBe(false);
        expect(Object.getPrototypeOf(Object.assign({}, data))).toBe(Object.prototype);
      }
    });
  }

  it('decodes a multi-byte character and a BOM split between chunks, at every byte', async () => {
    const raw = '\uFEFF{"list":[{"task":{"id":"t1","displayName":"Zoë 😀 漢"}}],"nextPageToken":""}';
    const bytes = encoder.encode(raw);
    for (let cut = 1; cut < bytes.byteLength; cut += 1) {
      const page = await clientAnswering(bytes, [cut]).tasks.search();
      expect(page.list?.[0]?.task?.displayName, `cut at byte ${cut}`).toBe('Zoë 😀 漢');
    }
  });

  it('answers one byte per chunk as the whole body', async () => {
    const raw = '{"list":[{"task":{"id":"t1","description":"é\\u00e9"}}],"nextPageToken":""}';
    const bytes = encoder.encode(raw);
    const cuts = Array.from({ length: bytes.byteLength - 1 }, (_, i) => i + 1);
    const page = await clientAnswering(bytes, cuts).tasks.search();
    expect(page.list?.[0]?.task?.description).toBe('éé');
  });
});

describe('ProtoHintScan', () => {
  it('finds a hint in a text cut into any pieces exactly when the whole text has one', () => {
    const text = fc.string({
      unit: fc.constantFrom('_', 'p', 'r', 'o', 't', '\\', 'u', '"', 'x'),
      maxLength: 40,
    });
    fc.assert(
      fc.property(text, fc.array(fc.nat(40), { maxLength: 6 }), (whole, cuts) => {
        const edges = [
          0,
          ...[...new Set(cuts)].filter((c) => c < whole.length).sort((a, b) => a - b),
          whole.length,
        ];
        const scan = new ProtoHintScan();
        for (let i = 1; i < edges.length; i += 1) scan.add(whole.slice(edges[i - 1], edges[i]));
        expect(scan.found).toBe(mayNameProto(whole));
      }),
      { numRuns: 2000 },
    );
  });
});
