// An outcome is never lost or mislabelled, and one bad event never stalls the queue: each case on
// every store, against a real listener on loopback that records every request it accepts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/index.ts';
import { MemoryOutboxStore, type OutboxStore, WebhookOutbox } from '../../src/outbox/index.ts';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import { WebhookSender } from '../../src/webhooks/index.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-outcomes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
afterAll(() => pg?.stop());

/** A listener: answers per body (`fail` 503, `bad` 400 with a NUL byte, else 200), after `delayMs`. */
async function listener(options: { delayMs?: number; onRequest?: () => void } = {}) {
  const accepted: string[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk));
    request.on('end', () => {
      options.onRequest?.();
      setTimeout(() => {
        if (body.includes('fail')) return response.writeHead(503).end('busy');
        if (body.includes('bad')) return response.writeHead(400).end('refused \u0000 here');
        accepted.push(String(request.headers['webhook-event-id']));
        response.writeHead(200).end('ok');
      }, options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/webhooks/incoming/l`;
  const sender = new WebhookSender({ url, hmac: { secret: 'outcome-secret' } });
  return { accepted, sender, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let n = 0;
type Open = () => Promise<OutboxStore>;
const stores: Array<[string, Open, Open]> = [];
{
  const memory = new MemoryOutboxStore();
  stores.push(['memory', async () => memory, async () => memory]);
}
{
  const path = () => join(dir, `outcomes-${++n}.db`);
  let last = '';
  stores.push([
    'sqlite',
    async () => {
      last = path();
      return new SqliteOutboxStore({ path: last });
    },
    async () => new SqliteOutboxStore({ path: last }),
  ]);
}
if (pg) {
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  let table = '';
  const open = async (fresh: boolean) => {
    if (fresh) table = `${pg.schema}.outcomes_${++n}`;
    const store = new PostgresOutboxStore({ connectionString: pg.url, table });
    if (fresh) await store.migrate();
    return store;
  };
  stores.push(['postgres', () => open(true), () => open(false)]);
} else {
  it.skip(`PostgreSQL outcomes: ${NO_POSTGRES}`, () => {});
}

describe.each(stores)('outbox outcomes on the %s store', (_kind, open, openSecond) => {
  it('drains every due event in one call while failing events retry at once (concurrency > 1)', async () => {
    const { accepted, sender, close } = await listener();
    const store = await open();
    const outbox = new WebhookOutbox({ sender, store, concurrency: 2, retrySchedule: [0] });
    const failing = [await outbox.enqueue({ fail: 1 }), await outbox.enqueue({ fail: 2 })];
    const healthy = [];
    for (let i = 0; i < 8; i++) healthy.push(await outbox.enqueue({ ok: i }));
    const first = await outbox.drain();
    expect(first).toMatchObject({ delivered: 8, retried: 2 });
    expect(accepted.sort()).toEqual(healthy.map((r) => r.eventId).sort());
    for (const { eventId } of failing)
      expect(await outbox.get(eventId)).toMatchObject({ state: 'pending', attempts: 1 });
    expect(await outbox.drain()).toMatchObject({ delivered: 0, retried: 2, attempts: 2 });
    await store.close();
    await close();
  });

  it('records delivered when the listener accepted an event whose window ended during the attempt', async () => {
    const { accepted, sender, close } = await listener({ delayMs: 400 });
    const start = 1_000_000;
    const a = new WebhookOutbox({ sender, store: await open(), expireAfterMs: 1_000, now: () => start });
    const storeB = await openSecond();
    // Worker B's clock is past the event's window, but within A's lease: A's attempt is in flight.
    const b = new WebhookOutbox({ sender, store: storeB, now: () => start + 2_000 });
    const { eventId } = await a.enqueue({ ok: 'race' });
    const draining = a.drain();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const racing = await b.drain();
    expect(racing).toMatchObject({ attempts: 0, expired: 0 });
    expect(await draining).toMatchObject({ delivered: 1, expired: 0 });
    expect(accepted).toEqual([eventId]);
    expect(await a.get(eventId)).toMatchObject({ state: 'delivered', attempts: 1 });
    await storeB.close();
    await close();
  });

  it('lets a delivery win over an expiry decided after its lease ran out', async () => {
    const store = await open();
    const L = 'https://tenant.test/api/v1/webhooks/incoming/l';
    const eventId = crypto.randomUUID();
    await store.add({ eventId, listener: L, body: '{}', enqueuedAt: 0, expiresAt: 100 });
    const [claimed] = await store.claim({
      listener: L,
      now: 10,
      leaseMs: 50,
      limit: 1,
      ordered: false,
      leaseToken: 'a',
    });
    expect(claimed?.eventId).toBe(eventId);
    expect(await store.expire(L, 99)).toBe(0); // still leased: the attempt decides
    expect(await store.expire(L, 200)).toBe(1);
    expect(await store.complete(eventId, 'a', 201, { state: 'delivered', answer: { status: 200 } })).toBe(
      true,
    );
    expect(await store.get(eventId)).toMatchObject({ state: 'delivered', attempts: 1 });
    // Any other outcome does not overwrite the expiry.
    const other = crypto.randomUUID();
    await store.add({ eventId: other, listener: L, body: '{}', enqueuedAt: 0, expiresAt: 100 });
    await store.claim({ listener: L, now: 10, leaseMs: 50, limit: 1, ordered: false, leaseToken: 'b' });
    await store.expire(L, 200);
    expect(await store.complete(other, 'b', 201, { state: 'dead', answer: { status: 400 } })).toBe(false);
    expect(await store.get(other)).toMatchObject({ state: 'expired' });
    await store.close();
  });

  it('counts in the drain summary the events it found past their window', async () => {
    const { accepted, sender, close } = await listener();
    let now = 5_000;
    const outbox = new WebhookOutbox({ sender, store: await open(), now: () => now });
    const { eventId } = await outbox.enqueue({ ok: 'late' });
    now += 8 * 24 * 60 * 60_000;
    expect(await outbox.drain()).toMatchObject({ attempts: 0, expired: 1 });
    expect(await outbox.get(eventId)).toMatchObject({ state: 'expired' });
    expect(accepted).toEqual([]);
    await close();
  });

  it('stores an answer holding a NUL byte, and takes a refused event to dead', async () => {
    const { sender, close } = await listener();
    const outbox = new WebhookOutbox({ sender, store: await open() });
    const { eventId } = await outbox.enqueue({ bad: true });
    expect(await outbox.drain()).toMatchObject({ dead: 1 });
    const event = await outbox.get(eventId);
    expect(event).toMatchObject({ state: 'dead', attempts: 1, lastAnswer: { status: 400 } });
    expect(event?.lastAnswer?.body).toBe('refused \uFFFD here');
    await close();
  });

  it('rejects, never throws, on bad arguments to deadLetters and purgeDelivered', async () => {
    const { sender, close } = await listener();
    const outbox = new WebhookOutbox({ sender, store: await open() });
    const dead = outbox.deadLetters({ limit: -1 });
    const purge = outbox.purgeDelivered(Number.NaN);
    await expect(dead).rejects.toThrow(ConfigurationError);
    await expect(purge).rejects.toThrow(ConfigurationError);
    await close();
  });
});

describe('a store that fails while the listener answers', () => {
  it('SQLite: the outcome is recorded once another connection lets go of the lock', async () => {
    const path = join(dir, `locked-${++n}.db`);
    let blocker: DatabaseSync | undefined;
    const { accepted, sender, close } = await listener({
      onRequest: () => {
        // While the request is at the listener, another connection takes the write lock for 600 ms.
        blocker = new DatabaseSync(path);
        blocker.exec('BEGIN IMMEDIATE');
        setTimeout(() => {
          blocker?.exec('COMMIT');
          blocker?.close();
        }, 600);
      },
    });
    const store = new SqliteOutboxStore({ path, busyTimeoutMs: 50, logLevel: 'off' });
    const outbox = new WebhookOutbox({ sender, store, logLevel: 'off' });
    const { eventId } = await outbox.enqueue({ ok: 'locked' });
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(blocker).toBeDefined();
    expect(accepted).toEqual([eventId]);
    expect(await outbox.get(eventId)).toMatchObject({ state: 'delivered', attempts: 1 });
    await store.close();
    await close();
  });

  it.skipIf(!pg)(
    'PostgreSQL stopped mid-attempt: every accepted event ends delivered',
    async () => {
      const script = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url));
      const url = execFileSync('bash', [script, 'start'], { encoding: 'utf8' }).trim();
      const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
      let paused = false;
      const { accepted, sender, close } = await listener({
        delayMs: 100,
        onRequest: () => {
          if (paused) return;
          paused = true;
          execFileSync('bash', [script, 'pause', url]);
          setTimeout(() => execFileSync('bash', [script, 'resume', url]), 500);
        },
      });
      const store = new PostgresOutboxStore({ connectionString: url, logLevel: 'off' });
      try {
        await store.migrate();
        const outbox = new WebhookOutbox({ sender, store, concurrency: 4, logLevel: 'off' });
        const ids = [];
        for (let i = 0; i < 20; i++) ids.push((await outbox.enqueue({ ok: i })).eventId);
        const started = Date.now();
        for (let round = 0; round < 10 && (await outbox.counts()).delivered < 20; round++) {
          await outbox.drain().catch(() => undefined);
        }
        expect(await outbox.counts()).toMatchObject({ delivered: 20, pending: 0 });
        expect(new Set(accepted)).toEqual(new Set(ids));
        expect(Date.now() - started).toBeLessThan(15_000);
      } finally {
        await store.close().catch(() => undefined);
        await close();
        execFileSync('bash', [script, 'stop', url]);
      }
    },
    60_000,
  );
});

describe('what a dead event keeps of its answer', () => {
  it("logs none of the listener's key, should the listener echo its URL, and keeps where one that moved points", async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url?.startsWith('/moved'))
          return response.writeHead(302, { location: 'https://hooks.example/new?token=abc' }).end();
        response
          .writeHead(400)
          .end(
            `no route for ${request.url} (code ${new URL(request.url ?? '', 'http://x').searchParams.get('code')})`,
          );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const said: string[] = [];
      const logger = {
        error() {},
        warn() {},
        debug() {},
        info: (m: string, ...rest: unknown[]) => void said.push(m + JSON.stringify(rest)),
      };
      const store = new MemoryOutboxStore();
      const keyed = `${origin}/api/v1/webhooks/incoming/crm?code=gateway-key-77`;
      const reported: unknown[] = [];
      const echoing = new WebhookOutbox({
        sender: new WebhookSender({ url: keyed, hmac: { secret: 'outcome-secret' } }),
        store,
        logger,
        logLevel: 'info',
        onAttempt: (attempt) => void reported.push(attempt.answer),
      });
      const { eventId: refused } = await echoing.enqueue({ n: 1 });
      expect(await echoing.drain()).toMatchObject({ dead: 1 });
      // Kept whole, as the listener's URL is, in the operator's own database.
      expect((await echoing.get(refused))?.lastAnswer?.status).toBe(400);
      expect(said.join('\n')).toContain('no route for /api/v1/webhooks/incoming/crm?code=*** (code ***)');
      expect(said.join('\n')).not.toContain('gateway-key-77');
      expect(reported).toEqual([
        { status: 400, body: 'no route for /api/v1/webhooks/incoming/crm?code=*** (code ***)' },
      ]);

      const movedUrl = `${origin}/moved/api/v1/webhooks/incoming/hook`;
      const moved = new WebhookOutbox({
        sender: new WebhookSender({ url: movedUrl, hmac: { secret: 'outcome-secret' } }),
        store,
      });
      const { eventId } = await moved.enqueue({ n: 2 });
      expect(await moved.drain()).toMatchObject({ dead: 1 });
      expect((await moved.get(eventId))?.lastAnswer).toMatchObject({
        status: 302,
        error: expect.stringMatching(/^redirected to https:\/\/hooks\.example\/new, which is not followed/),
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('a damaged SQLite row', () => {
  it('goes to dead with the reason, never on the wire, and does not hold back the events after it', async () => {
    const path = join(dir, `damaged-${++n}.db`);
    const { accepted, sender, close } = await listener();
    const warnings: string[] = [];
    const logger = { error() {}, warn: (m: string) => warnings.push(m), info() {}, debug() {} };
    const store = new SqliteOutboxStore({ path, logger });
    const outbox = new WebhookOutbox({ sender, store });
    const blob = await outbox.enqueue({ n: 1 });
    const text = await outbox.enqueue({ n: 2 });
    const fine = await outbox.enqueue({ n: 3 });
    const editor = new DatabaseSync(path);
    editor
      .prepare('UPDATE idgov_webhook_outbox SET body = CAST(body AS BLOB) WHERE event_id = ?')
      .run(blob.eventId);
    editor
      .prepare(`UPDATE idgov_webhook_outbox SET next_attempt_at = 'soon' WHERE event_id = ?`)
      .run(text.eventId);
    editor.close();
    expect(await outbox.drain()).toMatchObject({ delivered: 1 });
    expect(accepted).toEqual([fine.eventId]);
    expect(await outbox.get(blob.eventId)).toMatchObject({ state: 'dead', attempts: 0 });
    expect((await outbox.get(blob.eventId))?.lastAnswer?.error).toMatch(/body is a BLOB of \d+ bytes/);
    expect((await outbox.get(text.eventId))?.lastAnswer?.error).toMatch(/next_attempt_at is "soon"/);
    expect(warnings).toEqual([
      expect.stringContaining(`event ${blob.eventId}`),
      expect.stringContaining(`event ${text.eventId}`),
    ]);
    await store.close();
    await close();
  });
});

describe('a SQLite row with an integer past 2^53 (a hand edit, a time in µs)', () => {
  // node:sqlite throws a bare RangeError reading such an integer as a number: every claim, get and
  // list of the listener failed, and the events after the row were never sent.
  it.each([
    ['next_attempt_at', 1, '1152921504606846976'],
    ['attempts', 1, '1152921504606846976'],
    ['last_status', 1, '1152921504606846976'],
    ['lease_until', 1, '1152921504606846976'],
    ['next_attempt_at', 4, '1152921504606846976'],
    // 16 digits, past 2^53 all the same: read as text, but no whole number a number holds.
    ['next_attempt_at', 1, '9007199254740993'],
    ['next_attempt_at', 4, '9999999999999999'],
    ['finished_at', 1, '9999999999999999'],
  ] as const)(
    'in %s (concurrency %i, %s): read, buried with the reason, the events after it sent',
    async (column, concurrency, HUGE) => {
      const path = join(dir, `huge-${++n}.db`);
      const { accepted, sender, close } = await listener();
      const logger = { error() {}, warn() {}, info() {}, debug() {} };
      const store = new SqliteOutboxStore({ path, logger });
      const outbox = new WebhookOutbox({ sender, store, concurrency });
      try {
        const damaged = await outbox.enqueue({ n: 1 });
        const fine = await outbox.enqueue({ n: 2 });
        const editor = new DatabaseSync(path);
        editor
          .prepare(
            `UPDATE idgov_webhook_outbox SET ${column} = ${HUGE}, leased_at = 1, lease_token = 'gone-holder' WHERE event_id = ?`,
          )
          .run(damaged.eventId);
        editor.close();
        // An event carries no lease: damage there shows when a drain claims it.
        if (column !== 'lease_until')
          expect(await outbox.get(damaged.eventId)).toMatchObject({
            damaged: expect.stringContaining(`its ${column} is "${HUGE}"`),
          });
        expect(await store.leases(sender.url, Date.now(), 10)).toEqual([]);
        expect(await outbox.drain()).toMatchObject({ delivered: 1 });
        expect(accepted).toEqual([fine.eventId]);
        expect(await outbox.get(damaged.eventId)).toMatchObject({ state: 'dead' });
        expect((await outbox.get(damaged.eventId))?.lastAnswer?.error).toContain(
          `its ${column} is "${HUGE}", not a whole number`,
        );
      } finally {
        await store.close();
        await close();
      }
    },
  );
});

describe('PostgreSQL table names', () => {
  it('refuses names whose index names PostgreSQL would cut to one', async () => {
    const { PostgresOutboxStore, postgresOutboxSchema } = await import('../../src/outbox/postgres-store.ts');
    for (const length of [57, 62, 63]) {
      expect(
        () =>
          new PostgresOutboxStore({
            pool: { query: async () => ({ rows: [] }) } as never,
            table: 'a'.repeat(length),
          }),
      ).toThrow(/at most 56 leave room for its index names/);
    }
    expect(postgresOutboxSchema('a'.repeat(56))).toContain(`"${'a'.repeat(56)}_expiry"`);
  });

  it.skipIf(!pg)('creates both indexes for a name of the longest length allowed', async () => {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const bare = `t${'x'.repeat(55)}`;
    const store = new PostgresOutboxStore({ connectionString: pg?.url, table: `${pg?.schema}.${bare}` });
    await store.migrate();
    const { default: pgLib } = await import('pg');
    const client = new pgLib.Client({ connectionString: pg?.url });
    await client.connect();
    const { rows } = await client.query(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [pg?.schema, bare],
    );
    await client.end();
    await store.close();
    expect(rows.map((r: { indexname: string }) => r.indexname)).toEqual(
      expect.arrayContaining([`${bare}_queue`, `${bare}_expiry`]),
    );
  });
});

describe('PostgreSQL errors', () => {
  it('come typed: a server that is not there is a transient StoreError, never pg raw', async () => {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const { StoreError } = await import('../../src/index.ts');
    const store = new PostgresOutboxStore({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      logLevel: 'off',
    });
    const error = await store.counts('l').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', transient: true });
    expect((error as Error).message).toMatch(
      /PostgreSQL failed counting events on idgov_webhook_outbox: .*ECONNREFUSED/,
    );
    await store.close();
  });

  it.skipIf(!pg)('a table nobody migrated says to run migrate()', async () => {
    const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
    const store = new PostgresOutboxStore({
      connectionString: pg?.url,
      table: `${pg?.schema}.never_migrated`,
    });
    const error = await store.counts('l').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/has no table .*never_migrated.*run store.migrate\(\)/);
    await store.close();
  });
});
