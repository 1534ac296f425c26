import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeListenerOptions, FakeTenant } from '../../src/testing/index.ts';
import { MemoryEventIdStore, verifyWebhook } from '../../src/webhooks/index.ts';
import {
  type BuiltRequest,
  buildRequest,
  CONFORMANCE_CASES,
  type ConformanceCase,
  NOW,
  SECRET,
} from '../fixtures/webhook-conformance.ts';

// One table, three listeners: the verifier, the fake tenant's core, and the fake tenant on a real port.

/** A server that must never be asked anything: jku and x5u headers point at it. */
let trapRequests = 0;
const trap = createServer((_request, response) => {
  trapRequests += 1;
  response.end('{"keys":[]}');
});
let trapUrl = '';

const remoteAddress = '127.0.0.1';
const listenerIdOf = (caseIndex: number) => `l1-c${caseIndex}`;

const headersOf = (built: BuiltRequest) => {
  const headers = new Headers();
  for (const [name, value] of built.headers) headers.append(name, value);
  return headers;
};

interface Runner {
  readonly baseUrl: () => string;
  /** Sets up the case's listener; returns a function answering a built request with status and reason. */
  readonly prepare: (
    spec: ConformanceCase,
    caseIndex: number,
  ) => (built: BuiltRequest) => Promise<{ status: number; reason: string }>;
}

/** A plain record as Node's request.headers gives it: a repeated header as an array of its values. */
const recordOf = (built: BuiltRequest) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of built.headers) {
    const before = headers[name.toLowerCase()];
    headers[name.toLowerCase()] =
      before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return headers;
};

/** verifyWebhook, given the headers as a `Headers` object or as a plain record. */
const verifierRunner = (form: 'Headers' | 'record'): Runner => ({
  baseUrl: () => 'https://tenant.test',
  prepare(spec) {
    const seen = new MemoryEventIdStore();
    return (built) =>
      verifyWebhook(
        {
          method: built.method,
          url: built.url,
          headers: form === 'Headers' ? headersOf(built) : recordOf(built),
          body: built.body,
          remoteAddress,
        },
        {
          ...(spec.listener.kind === 'hmac' ? { hmacSecret: SECRET } : { jwks: spec.listener.jwks }),
          allowedCidrs: spec.listener.allowedCidrs,
          baseUrl: 'https://tenant.test',
          seen,
          now: NOW * 1000,
        },
      );
  },
});

function addListener(tenant: FakeTenant, spec: ConformanceCase, caseIndex: number) {
  const common = { id: listenerIdOf(caseIndex), allowedCidrs: spec.listener.allowedCidrs };
  const options: FakeListenerOptions =
    spec.listener.kind === 'hmac' ? { ...common, secret: SECRET } : { ...common, jwks: spec.listener.jwks };
  tenant.addListener(options);
}

const handled = new FakeTenant({ now: () => NOW * 1000 });
const handleRunner: Runner = {
  baseUrl: () => handled.baseUrl,
  prepare(spec, caseIndex) {
    addListener(handled, spec, caseIndex);
    return async (built) => {
      const answer = await handled.handle(
        new Request(built.url, {
          method: built.method,
          headers: headersOf(built),
          body: built.method === 'GET' ? undefined : built.body,
        }),
        { remoteAddress },
      );
      if (answer === 'drop') throw new Error('dropped');
      return { status: answer.status, reason: ((await answer.json()) as { message: string }).message };
    };
  },
};

const served = new FakeTenant({ now: () => NOW * 1000 });
let closeServed: () => Promise<void>;
/** Sends exact bytes and header lines (a repeated name is sent as repeated lines) with node:http. */
function send(built: BuiltRequest): Promise<{ status: number; reason: string }> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of built.headers) {
    const before = headers[name];
    headers[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(built.url, { method: built.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          reason: (JSON.parse(Buffer.concat(chunks).toString()) as { message: string }).message,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(built.body);
  });
}
const loopbackRunner: Runner = {
  baseUrl: () => served.baseUrl,
  prepare(spec, caseIndex) {
    addListener(served, spec, caseIndex);
    return send;
  },
};

beforeAll(async () => {
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  ({ close: closeServed } = await served.listen());
});
afterAll(async () => {
  await closeServed();
  trap.closeAllConnections();
  await new Promise((resolve) => trap.close(resolve));
});

for (const [runnerName, runner] of [
  ['verifyWebhook (Headers)', verifierRunner('Headers')],
  ['verifyWebhook (plain record)', verifierRunner('record')],
  ['FakeTenant.handle', handleRunner],
  ['FakeTenant on loopback', loopbackRunner],
] as const) {
  describe(`webhook conformance: ${runnerName}`, () => {
    CONFORMANCE_CASES.forEach((spec, caseIndex) => {
      const statuses = spec.requests.map((r) => r.status).join(' then ');
      it(`${spec.name}: ${statuses}`, async () => {
        const answer = runner.prepare(spec, caseIndex);
        const context = { baseUrl: runner.baseUrl(), listenerId: listenerIdOf(caseIndex), trapUrl };
        for (const [requestIndex, expected] of spec.requests.entries()) {
          const got = await answer(await buildRequest(caseIndex, requestIndex, context));
          expect({ request: requestIndex, ...got }).toMatchObject({
            request: requestIndex,
            status: expected.status,
            ...(expected.reason ? { reason: expect.stringMatching(expected.reason) } : {}),
          });
        }
      });
    });
  });
}

describe('webhook conformance: no key-locating header is ever followed', () => {
  it('sent nothing to the jku / x5u trap', () => {
    expect(trapRequests).toBe(0);
  });
});
