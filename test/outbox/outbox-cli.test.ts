import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteOutboxStore } from '../../src/outbox/sqlite-store.ts';
import type { OutboxStore } from '../../src/outbox/store.ts';
import { thisProcess } from '../../src/stores/local-process.ts';
import { idgov } from '../helpers/idgov.ts';
import { otlpCollector } from '../helpers/otlp-collector.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-outbox-cli-'));
const pg = await postgresForTests();
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pg?.stop();
});

// A gateway keeps its key in the query: the tool never shows it.
const KEYED = 'https://gw.example/api/v1/webhooks/incoming/crm?code=gateway-key-77';
const PLAIN = 'https://hr.example/api/v1/webhooks/incoming/hr';
const DAY = 24 * 60 * 60_000;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Events of both listeners in every state: 1 pending, 2 delivered (an old one), 3 and 4 dead, 5 expired, 6 pending of PLAIN. */
async function fill(store: OutboxStore): Promise<void> {
  const now = Date.now();
  const add = (n: number, listener = KEYED, enqueuedAt = now - 60_000) =>
    store.add({ eventId: id(n), listener, body: `{"n":${n}}`, enqueuedAt, expiresAt: enqueuedAt + DAY });
  for (const n of [1, 2, 3, 4, 5]) await add(n);
  await add(6, PLAIN);
  const claimed = await store.claim({
    listener: KEYED,
    now,
    leaseMs: 60_000,
    limit: 10,
    ordered: false,
    leaseToken: 'cli-test',
    exclude: [id(1)],
  });
  const outcome = (n: number) => {
    if (n === 2) return { state: 'delivered' as const, answer: { status: 200 } };
    if (n === 5) return { state: 'expired' as const, answer: { error: 'window ended' } };
    return { state: 'dead' as const, answer: { status: 400, body: 'bad payload' } };
  };
  for (const event of claimed) {
    const n = Number(event.eventId.slice(-2));
    await store.complete(event.eventId, 'cli-test', n === 2 ? now - 10 * DAY : now, outcome(n));
  }
}

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The store a target's arguments name, opened again. */
async function reopen(where: readonly string[]): Promise<OutboxStore> {
  if (where[0] === '--db') return new SqliteOutboxStore({ path: where[1] as string });
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  return new PostgresOutboxStore({ connectionString: where[1] as string, table: where[3] as string });
}

const targets: Array<[string, () => Promise<string[]>]> = [
  [
    'SQLite',
    async () => {
      const path = join(dir, `${crypto.randomUUID()}.db`);
      const store = new SqliteOutboxStore({ path });
      await fill(store);
      await store.close();
      return ['--db', path];
    },
  ],
];
if (pg) {
  const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
  targets.push([
    'PostgreSQL',
    async () => {
      const table = `${pg.schema}.outbox_${crypto.randomUUID().slice(0, 8)}`;
      const store = new PostgresOutboxStore({ connectionString: pg.url, table });
      await store.migrate();
      await fill(store);
      await store.close();
      return ['--postgres', pg.url, '--table', table];
    },
  ]);
} else {
  it.skip(`idgov outbox on PostgreSQL: ${NO_POSTGRES}`, () => {});
}

describe.each(targets)('idgov outbox on %s', (_name, make) => {
  it('status: counts by state a listener, the oldest pending, no key', async () => {
    const where = await make();
    const ran = await idgov(['outbox', 'status', ...where, '--json']);
    expect(ran.code).toBe(0);
    const status = lines(ran.stdout);
    expect(status.map((s) => s.listener)).toEqual([
      'https://gw.example/api/v1/webhooks/incoming/crm?code=***',
      'https://hr.example/api/v1/webhooks/incoming/hr',
    ]);
    expect(status[0]?.counts).toEqual({ pending: 1, delivered: 1, dead: 2, expired: 1 });
    expect(status[0]?.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(59);
    expect(ran.stdout + ran.stderr).not.toContain('gateway-key-77');
    const human = await idgov(['outbox', 'status', ...where]);
    expect(human.stdout).toContain('pending 1, delivered 1, dead 2, expired 1');
  });

  it('--listener as status shows it (its key left out) is that listener; one without events is said', async () => {
    const where = await make();
    const shown = 'https://gw.example/api/v1/webhooks/incoming/crm';
    const dead = lines(
      (await idgov(['outbox', 'list', ...where, '--state', 'dead', '--listener', shown, '--json'])).stdout,
    );
    expect(dead.map((e) => e.eventId)).toEqual([id(3), id(4)]);
    const retried = await idgov(['outbox', 'retry', ...where, '--all-dead', '--listener', shown, '--json']);
    expect(lines(retried.stdout)).toEqual([
      { eventId: id(3), retried: true },
      { eventId: id(4), retried: true },
    ]);
    expect(retried.stdout + retried.stderr).not.toContain('gateway-key-77');
    const nobody = await idgov(['outbox', 'status', ...where, '--listener', 'https://nobody.example/hook']);
    expect(nobody.code).toBe(0);
    expect(nobody.stderr).toMatch(/no events for the listener https:\/\/nobody\.example\/hook/);
  });

  it('a listener with a key and one without on the same URL: status shows them apart, and each is named as shown', async () => {
    const where = await make();
    const store = await reopen(where);
    const bare = 'https://gw.example/api/v1/webhooks/incoming/crm';
    const now = Date.now();
    await store.add({ eventId: id(9), listener: bare, body: '{}', enqueuedAt: now, expiresAt: now + DAY });
    await store.close();
    const status = lines((await idgov(['outbox', 'status', ...where, '--json'])).stdout);
    expect(status.map((s) => s.listener)).toEqual([
      bare,
      `${bare}?code=***`,
      'https://hr.example/api/v1/webhooks/incoming/hr',
    ]);
    // The keyed listener's dead events, named as status shows it.
    const dead = lines(
      (
        await idgov([
          'outbox',
          'list',
          ...where,
          '--state',
          'dead',
          '--listener',
          `${bare}?code=***`,
          '--json',
        ])
      ).stdout,
    );
    expect(dead.map((e) => e.eventId)).toEqual([id(3), id(4)]);
    // The URL without a query is that listener alone, and says which it leaves out.
    const plain = await idgov(['outbox', 'retry', ...where, '--all-dead', '--listener', bare]);
    expect(plain.stdout).toMatch(/0 of 0 event/);
    expect(plain.stderr).toContain(`leaves out 1 listener(s) with a query (${bare}?code=***)`);
    expect(plain.stdout + plain.stderr).not.toContain('gateway-key-77');
  });

  it('list: the dead events with their last answer; bodies only with --body', async () => {
    const where = await make();
    const dead = lines((await idgov(['outbox', 'list', ...where, '--state', 'dead', '--json'])).stdout);
    expect(dead.map((e) => e.eventId)).toEqual([id(3), id(4)]);
    expect(dead[0]).toMatchObject({
      state: 'dead',
      attempts: 1,
      lastAnswer: { status: 400, body: 'bad payload' },
    });
    expect(dead[0]).not.toHaveProperty('body');
    const withBodies = lines(
      (await idgov(['outbox', 'list', ...where, '--state', 'DEAD', '--json', '--body'])).stdout,
    );
    expect(withBodies[0]?.body).toBe('{"n":3}');
    // As text: the listener's answer, its body's start beside its status, which says why it died.
    const text = await idgov(['outbox', 'list', ...where, '--state', 'dead']);
    expect(text.stdout).toContain(`${id(3)}  dead  1 attempt(s)  last: 400 bad payload  `);
    // A listener that echoes its URL, key included, and a character that would reorder the line.
    const store = await reopen(where);
    const now = Date.now();
    await store.add({ eventId: id(8), listener: KEYED, body: '{}', enqueuedAt: now, expiresAt: now + DAY });
    await store.claim({
      listener: KEYED,
      now,
      leaseMs: 60_000,
      limit: 1,
      ordered: false,
      leaseToken: 'echo',
      exclude: [id(1)],
    });
    const echoed = `refused ${KEYED}\n\u202Etxt.exe`;
    await store.complete(id(8), 'echo', now, { state: 'dead', answer: { status: 401, body: echoed } });
    await store.close();
    const listed = (await idgov(['outbox', 'list', ...where, '--state', 'dead'])).stdout;
    expect(listed).toContain(
      `${id(8)}  dead  1 attempt(s)  last: 401 refused ${KEYED.replace('gateway-key-77', '***')} txt.exe  `,
    );
    expect(listed).not.toContain('gateway-key-77');
    expect(listed).not.toContain('\u202E');
    // Kept so by an earlier release: --json leaves the key out too.
    const json = (await idgov(['outbox', 'list', ...where, '--state', 'dead', '--json'])).stdout;
    expect(json).toContain(KEYED.replace('gateway-key-77', '***'));
    expect(json).not.toContain('gateway-key-77');
    const bad = await idgov(['outbox', 'list', ...where, '--state', 'lost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--state must be pending, delivered, dead or expired/);
  });

  it('list pages with --after: each page says where the next starts, across listeners, each event once', async () => {
    const where = await make();
    const seen: unknown[] = [];
    let after: string[] = [];
    for (let page = 0; page < 5; page++) {
      const ran = await idgov([
        'outbox',
        'list',
        ...where,
        '--state',
        'pending',
        '--limit',
        '1',
        '--json',
        ...after,
      ]);
      expect(ran.code, ran.stderr).toBe(0);
      seen.push(...lines(ran.stdout).map((e) => e.eventId));
      const next = /more may follow, with --after (\S+)/.exec(ran.stderr)?.[1];
      if (!next) break;
      after = ['--after', next];
    }
    expect(new Set(seen)).toEqual(new Set([id(1), id(6)]));
    expect(seen).toHaveLength(2);
    const unknown = await idgov(['outbox', 'list', ...where, '--after', id(99)]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--after .*: no such event/);
  });

  it('retry: one event, then every dead one; a delivered one is refused with why (exit 1)', async () => {
    const where = await make();
    const one = await idgov(['outbox', 'retry', ...where, id(3)]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`${id(3)}: pending, due now`);
    const refused = await idgov(['outbox', 'retry', ...where, id(2), '--json']);
    expect(refused.code).toBe(1);
    expect(lines(refused.stdout)).toEqual([{ eventId: id(2), retried: false, why: 'it was delivered' }]);
    const all = await idgov(['outbox', 'retry', ...where, '--all-dead', '--json']);
    expect(all.code).toBe(0);
    expect(lines(all.stdout)).toEqual([{ eventId: id(4), retried: true }]);
    const status = lines((await idgov(['outbox', 'status', ...where, '--json'])).stdout);
    expect(status[0]?.counts).toEqual({ pending: 3, delivered: 1, dead: 0, expired: 1 });
    expect((await idgov(['outbox', 'retry', ...where])).code).toBe(2);
    const mixed = await idgov(['outbox', 'retry', ...where, id(3), '--listener', PLAIN]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--listener applies to --all-dead/);
  });

  it('purge: delivered events finished before a date, and only those', async () => {
    const where = await make();
    const recent = await idgov([
      'outbox',
      'purge',
      ...where,
      '--delivered-before',
      new Date(Date.now() - 20 * DAY).toISOString(),
      '--json',
    ]);
    expect(lines(recent.stdout)).toMatchObject([{ purged: 0 }]);
    const old = await idgov([
      'outbox',
      'purge',
      ...where,
      '--delivered-before',
      new Date().toISOString().slice(0, 10),
    ]);
    expect(old.code).toBe(0);
    expect(old.stdout).toMatch(/^1 delivered event\(s\) finished before/);
    const status = lines((await idgov(['outbox', 'status', ...where, '--json'])).stdout);
    expect(status[0]?.counts).toEqual({ pending: 1, delivered: 0, dead: 2, expired: 1 });
    // Read one way only: a day, or a time with its zone; a date to come would delete everything.
    for (const [date, message] of [
      ['last week', /a day or a time with its zone, e\.g\. 2026-11-01/],
      ['Nov 1', /a day or a time with its zone/],
      ['2026-11-01 00:00', /a day or a time with its zone/],
      // Date.parse would roll these over to March 2 and November 2.
      ['2026-02-30', /no such day or time: "2026-02-30"/],
      ['2026-11-01T24:00Z', /no such day or time/],
      ['2026-13-01', /no such day or time/],
      ['3026-11-01', /--delivered-before is in the future/],
    ] as const) {
      const bad = await idgov(['outbox', 'purge', ...where, '--delivered-before', date]);
      expect(bad.code, date).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
  });

  it('purge --dead-before refuses, deleting nothing, while a dead event it would delete could still be retried', async () => {
    const where = await make();
    const now = new Date().toISOString();
    const refused = await idgov([
      'outbox',
      'purge',
      ...where,
      '--dead-before',
      now,
      '--delivered-before',
      now,
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^idgov: 2 dead event\(s\) that died before .* could still be retried \(they are within their window\): nothing was deleted\. Retry them \(idgov outbox retry --all-dead, on the same outbox\), or add --include-retryable/,
    );
    const counts = async () =>
      lines((await idgov(['outbox', 'status', ...where, '--json'])).stdout)[0]?.counts;
    expect(await counts()).toEqual({ pending: 1, delivered: 1, dead: 2, expired: 1 });
    // Before they died, none is in question.
    const earlier = new Date(Date.now() - DAY).toISOString();
    expect((await idgov(['outbox', 'purge', ...where, '--dead-before', earlier])).code).toBe(0);
    const alone = await idgov([
      'outbox',
      'purge',
      ...where,
      '--delivered-before',
      now,
      '--include-retryable',
    ]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--include-retryable applies to --dead-before/);
    const asked = await idgov([
      'outbox',
      'purge',
      ...where,
      '--dead-before',
      now,
      '--include-retryable',
      '--json',
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(lines(asked.stdout)).toMatchObject([{ purged: 2, dead: 2 }]);
    expect(await counts()).toEqual({ pending: 1, delivered: 1, dead: 0, expired: 1 });
  });

  it('a dead event past its window: --all-dead counts it apart (exit 0), purge --dead-before deletes it', async () => {
    const where = await make();
    const store = await reopen(where);
    // Enqueued two days ago and refused then: its window ended yesterday.
    const enqueuedAt = Date.now() - 2 * DAY;
    await store.add({
      eventId: id(7),
      listener: PLAIN,
      body: '{"n":7}',
      enqueuedAt,
      expiresAt: enqueuedAt + DAY,
    });
    const [old] = await store.claim({
      listener: PLAIN,
      now: enqueuedAt + 1_000,
      leaseMs: 60_000,
      limit: 1,
      ordered: false,
      leaseToken: 'old',
      exclude: [id(6)],
    });
    expect(old?.eventId).toBe(id(7));
    await store.complete(id(7), 'old', enqueuedAt + 2_000, { state: 'dead', answer: { status: 400 } });
    await store.close();

    const all = await idgov(['outbox', 'retry', ...where, '--all-dead']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(
      `${id(7)}: not retried: it is past its idempotency window (expired: its window has ended`,
    );
    expect(all.stdout).toMatch(
      /2 of 3 event\(s\) retried\.\n1 dead event\(s\) past their window .*idgov outbox purge --dead-before DATE/,
    );
    // Named, it is a request the tool could not carry out; named and under --all-dead, tried once.
    expect((await idgov(['outbox', 'retry', ...where, id(7)])).code).toBe(1);
    const both = await idgov(['outbox', 'retry', ...where, '--all-dead', id(7), '--json']);
    expect(both.code).toBe(1);
    expect(lines(both.stdout)).toEqual([
      { eventId: id(7), retried: false, why: expect.stringMatching(/its window has ended/) },
    ]);
    // A script tells it apart from a refusal by pastWindow.
    const scripted = await idgov(['outbox', 'retry', ...where, '--all-dead', '--json']);
    expect(scripted.code).toBe(0);
    expect(lines(scripted.stdout)).toEqual([
      {
        eventId: id(7),
        retried: false,
        why: expect.stringMatching(/its window has ended/),
        pastWindow: true,
      },
    ]);

    // The dead one died two days ago, the expired one (of fill) a moment ago.
    const today = new Date().toISOString().slice(0, 10);
    const now = new Date().toISOString();
    const purged = await idgov([
      'outbox',
      'purge',
      ...where,
      '--dead-before',
      today,
      '--expired-before',
      now,
      '--json',
    ]);
    expect(purged.code, purged.stderr).toBe(0);
    expect(lines(purged.stdout)).toEqual([
      {
        purged: 2,
        dead: 1,
        expired: 1,
        deadBefore: `${today}T00:00:00.000Z`,
        expiredBefore: now,
      },
    ]);
    const status = lines((await idgov(['outbox', 'status', ...where, '--json'])).stdout);
    expect(status.map((s) => s.counts)).toEqual([
      { pending: 3, delivered: 1, dead: 0, expired: 0 },
      { pending: 1, delivered: 0, dead: 0, expired: 0 },
    ]);
    const none = await idgov(['outbox', 'purge', ...where]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give --delivered-before, --dead-before or --expired-before/);
    const future = await idgov(['outbox', 'purge', ...where, '--dead-before', '3026-01-01']);
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/--dead-before is in the future/);
  });
});

describe('idgov outbox list over a damaged SQLite row', () => {
  it('lists it, its times that are not times as none, and the events around it; retry refuses it, saying why', async () => {
    const path = join(dir, `${crypto.randomUUID()}.db`);
    const store = new SqliteOutboxStore({ path });
    await fill(store);
    await store.close();
    const editor = new DatabaseSync(path);
    editor
      .prepare(
        `INSERT INTO idgov_webhook_outbox (event_id, listener, body, enqueued_at, expires_at, next_attempt_at)
         VALUES ('evt_damaged', ?, '{}', 'abc', 9e13, 'zzz')`,
      )
      .run(PLAIN);
    editor.close();
    const text = await idgov(['outbox', 'list', '--db', path, '--state', 'pending']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('evt_damaged  pending');
    const json = await idgov(['outbox', 'list', '--db', path, '--state', 'pending', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const damaged = lines(json.stdout).find((event) => event.eventId === 'evt_damaged');
    expect(damaged).toMatchObject({ enqueuedAt: null, nextAttemptAt: null });
    expect(lines(json.stdout).length).toBeGreaterThan(1);
    // Retried, it would only be buried again by the next claim: refused, saying why and what to do.
    const retried = await idgov(['outbox', 'retry', '--db', path, 'evt_damaged']);
    expect(retried.code).toBe(1);
    expect(retried.stdout).toContain('evt_damaged: not retried: it is damaged in the store');
    expect(retried.stdout).toMatch(/its enqueued_at is "abc", not a whole number.*--include-retryable/);
  });
});

describe('idgov outbox over more events than a query reads', () => {
  const addPlain = (store: OutboxStore, i: number, enqueuedAt: number) =>
    store.add({ eventId: id(i), listener: PLAIN, body: '{}', enqueuedAt, expiresAt: enqueuedAt + DAY });

  /** `n` events of PLAIN made dead by a refusal; those `pastWindow(i)` picks enqueued two days ago (their window ended). */
  async function deadEvents(store: OutboxStore, n: number, pastWindow: (i: number) => boolean) {
    const now = Date.now();
    const long = now - 2 * DAY;
    for (let i = 1; i <= n; i++) {
      const enqueuedAt = pastWindow(i) ? long : now - 60_000;
      await addPlain(store, i, enqueuedAt);
    }
    // The old events are due (and in their window) only at their enqueue time: claimed then, the others now.
    for (const at of [long + 1_000, now]) {
      const claimed = await store.claim({
        listener: PLAIN,
        now: at,
        leaseMs: 60_000,
        limit: n,
        ordered: false,
        leaseToken: 'refused',
      });
      for (const event of claimed) {
        await store.complete(event.eventId, 'refused', at + 1, { state: 'dead', answer: { status: 400 } });
      }
    }
  }

  it('retry --all-dead tries each of 1,200 dead events once, those past their window among them', async () => {
    const path = join(dir, `${crypto.randomUUID()}.db`);
    const store = new SqliteOutboxStore({ path });
    await deadEvents(store, 1_200, (i) => i % 3 === 0);
    expect(await store.counts(PLAIN)).toMatchObject({ dead: 1_200 });
    await store.close();
    const all = await idgov(['outbox', 'retry', '--db', path, '--all-dead', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const tried = lines(all.stdout);
    expect(new Set(tried.map((line) => line.eventId)).size).toBe(1_200);
    expect(tried).toHaveLength(1_200);
    expect(tried.filter((line) => line.retried)).toHaveLength(800);
    expect(tried.filter((line) => line.pastWindow)).toHaveLength(400);
  });

  /** Each store the tests have, new, with `n` dead events; the arguments that name it to idgov. */
  const deadTargets: Array<[string, (n: number) => Promise<string[]>]> = [
    [
      'SQLite',
      async (n) => {
        const path = join(dir, `${crypto.randomUUID()}.db`);
        const store = new SqliteOutboxStore({ path });
        await deadEvents(store, n, () => false);
        await store.close();
        return ['--db', path];
      },
    ],
  ];
  if (pg) {
    deadTargets.push([
      'PostgreSQL',
      async (n) => {
        const { PostgresOutboxStore } = await import('../../src/outbox/postgres-store.ts');
        const table = `${pg.schema}.dead_${crypto.randomUUID().slice(0, 8)}`;
        const store = new PostgresOutboxStore({ connectionString: pg.url, table });
        await store.migrate();
        await deadEvents(store, n, () => false);
        await store.close();
        return ['--postgres', pg.url, '--table', table];
      },
    ]);
  }

  it.each(deadTargets)(
    'retry --all-dead whose reader goes after a line (| head -1) still retries every dead event (%s)',
    async (_name, make) => {
      const where = await make(1_200);
      const ran = await idgov(
        ['outbox', 'retry', ...where, '--all-dead', '--json'],
        {},
        undefined,
        (_text, child) => child.stdout.destroy(),
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toBe('');
      const store = await reopen(where);
      expect(await store.counts(PLAIN)).toMatchObject({ pending: 1_200, dead: 0 });
      await store.close();
    },
  );

  it.each(deadTargets)(
    'SIGTERM during retry --all-dead stops it between two events: exit 130, and what it printed is what it did (%s)',
    async (_name, make) => {
      const where = await make(3_000);
      let signalled = false;
      const ran = await idgov(
        ['outbox', 'retry', ...where, '--all-dead', '--json'],
        {},
        undefined,
        (_text, child) => {
          if (!signalled) child.kill('SIGTERM');
          signalled = true;
        },
      );
      expect(ran.code, ran.stderr).toBe(130);
      expect(ran.stderr).toMatch(
        /stopped by SIGTERM; what is said above is done: run the same command again to go on/,
      );
      const said = lines(ran.stdout).filter((line) => line.retried === true).length;
      const store = await reopen(where);
      const counts = await store.counts(PLAIN);
      await store.close();
      expect(counts.pending).toBe(said);
      expect(said).toBeLessThan(3_000);
      expect(counts.dead).toBe(3_000 - said);
    },
  );

  it('status: the next due time is the earliest of every pending event, not of the first thousand', async () => {
    const path = join(dir, `${crypto.randomUUID()}.db`);
    const store = new SqliteOutboxStore({ path });
    const now = Date.now();
    for (let i = 1; i <= 1_001; i++) {
      // The last one enqueued is due first: a retry scheduled sooner than the others' first attempt.
      const enqueuedAt = i === 1_001 ? now - 3_600_000 : now + 3_600_000;
      await addPlain(store, i, enqueuedAt);
    }
    await store.close();
    const ran = await idgov(['outbox', 'status', '--db', path, '--json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(lines(ran.stdout)[0]).toMatchObject({
      counts: { pending: 1_001 },
      nextDueAt: new Date(now - 3_600_000).toISOString(),
    });
  });
});

it('idgov outbox status by a user who may read the file but not write beside it says so, not that the file is damaged', async (ctx) => {
  const place = join(dir, 'read-only-place');
  mkdirSync(place);
  const path = join(place, 'outbox.db');
  const store = new SqliteOutboxStore({ path });
  await store.add({
    eventId: id(1),
    listener: PLAIN,
    body: '{}',
    enqueuedAt: Date.now(),
    expiresAt: Date.now() + DAY,
  });
  await store.close();
  // Another user (root may write anywhere), or, not being root, a directory no one may write.
  const root = process.getuid?.() === 0;
  chmodSync(dir, 0o755); // mkdtemp's 0700 would keep the other user out of the way to the file
  chmodSync(place, root ? 0o755 : 0o555);
  const cli = fileURLToPath(new URL('../../src/cli/idgov.ts', import.meta.url));
  const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));
  const asOther = root ? { uid: 65534, gid: 65534 } : {};
  // A checkout under a directory only its owner may enter (/root) cannot be run by another user.
  const reach = `for (const f of ${JSON.stringify([cli, fromSource, path])}) require('node:fs').accessSync(f)`;
  if (spawnSync(process.execPath, ['-e', reach], asOther).status !== 0) {
    chmodSync(place, 0o755);
    ctx.skip();
  }
  const ran = spawnSync(process.execPath, ['--import', fromSource, cli, 'outbox', 'status', '--db', path], {
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
    ...asOther,
  });
  chmodSync(place, 0o755);
  expect(ran.status, ran.stderr).toBe(2);
  expect(ran.stderr).toMatch(
    /cannot be opened from here .*even to read it\. Run idgov as the user that runs the outbox/,
  );
  expect(ran.stderr).not.toMatch(/damaged/);
});

it('idgov outbox refuses a SQLite file that does not exist, a directory, or one that holds no outbox, rather than make one there', async () => {
  const ran = await idgov(['outbox', 'status', '--db', join(dir, 'typo.db')]);
  expect(ran.code).toBe(2);
  expect(ran.stderr).toMatch(/no such file/);
  const folder = await idgov(['outbox', 'status', '--db', dir]);
  expect(folder.code).toBe(2);
  expect(folder.stderr).toMatch(/is a directory: name the outbox's SQLite file in it/);
  const { DatabaseSync } = await import('node:sqlite');
  const other = join(dir, 'invoices.db');
  const db = new DatabaseSync(other);
  db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
  db.close();
  const wrong = await idgov(['outbox', 'status', '--db', other]);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toMatch(/holds no outbox \(no idgov_webhook_outbox table\)/);
  const after = new DatabaseSync(other, { readOnly: true });
  const tables = after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
    name: string;
  }>;
  after.close();
  expect(tables.map((t) => t.name)).toEqual(['invoices']);
});

it('idgov outbox exports a span of the command and the backlog to the collector the OTEL_* environment names', async () => {
  const collector = await otlpCollector();
  try {
    const path = join(dir, 'otel-outbox.db');
    const store = new SqliteOutboxStore({ path });
    await fill(store);
    // The same listener with another key: shown alike, so one series, whose dead events add up.
    const OTHER_KEY = KEYED.replace('gateway-key-77', 'other-key-88');
    const now = Date.now();
    await store.add({
      eventId: id(7),
      listener: OTHER_KEY,
      body: '{}',
      enqueuedAt: now,
      expiresAt: now + DAY,
    });
    const [other] = await store.claim({
      listener: OTHER_KEY,
      now,
      leaseMs: 60_000,
      limit: 1,
      ordered: false,
      leaseToken: 't',
    });
    await store.complete(other?.eventId ?? '', 't', now, { state: 'dead', answer: { status: 400 } });
    await store.close();
    const ran = await idgov(['outbox', 'status', '--db', path], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const traces = collector.traces();
    const metrics = collector.metrics();
    expect(traces).toContain('"idgov.outbox.status"');
    expect(metrics).toContain('idgov.outbox.backlog');
    expect(traces + metrics).not.toContain('gateway-key-77');
    type Point = {
      attributes: Array<{ key: string; value: { stringValue?: string } }>;
      asInt?: string | number;
      asDouble?: number;
    };
    const points: Point[] = JSON.parse(metrics).resourceMetrics.flatMap(
      (r: { scopeMetrics: Array<{ metrics: Array<{ name: string; gauge?: { dataPoints: Point[] } }> }> }) =>
        r.scopeMetrics.flatMap((m) =>
          m.metrics
            .filter((x) => x.name === 'idgov.outbox.backlog')
            .flatMap((x) => x.gauge?.dataPoints ?? []),
        ),
    );
    const attribute = (p: Point, key: string) => p.attributes.find((a) => a.key === key)?.value.stringValue;
    const dead = points.filter(
      (p) =>
        attribute(p, 'idgov.outbox.state') === 'dead' &&
        attribute(p, 'idgov.webhook.listener') === 'https://gw.example/api/v1/webhooks/incoming/crm',
    );
    expect(dead).toHaveLength(1);
    expect(Number(dead[0]?.asInt ?? dead[0]?.asDouble)).toBe(3);
  } finally {
    collector.close();
  }
});

it('idgov with a collector that is not there says once that telemetry could not be exported, and still does its work', async () => {
  const path = join(dir, 'otel-down.db');
  const store = new SqliteOutboxStore({ path });
  await fill(store);
  await store.close();
  // A port nothing listens on: a server started and closed.
  const { createServer } = await import('node:net');
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as { port: number };
  await new Promise((resolve) => closed.close(resolve));
  const ran = await idgov(['outbox', 'status', '--db', path, '--json'], {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
  });
  expect(ran.code, ran.stderr).toBe(0);
  expect(lines(ran.stdout)).toHaveLength(2);
  const told = ran.stderr.match(
    /telemetry could not be exported \(.*ECONNREFUSED.*\): check OTEL_EXPORTER_OTLP_ENDPOINT\./g,
  );
  expect(told).toHaveLength(1);
  expect(ran.stderr).not.toMatch(/"stack"/);
});

// A holder is known gone only where /proc names the process's PID namespace and boot (Linux).
it.skipIf(!existsSync('/proc/self/ns/pid'))(
  'idgov outbox retry on SQLite: an event whose attempt a process of this machine began and died in is not "in flight": retried at once',
  async () => {
    const path = join(dir, 'gone-holder.db');
    const store = new SqliteOutboxStore({ path });
    const now = Date.now();
    await store.add({ eventId: id(1), listener: PLAIN, body: '{}', enqueuedAt: now, expiresAt: now + DAY });
    // The attempt's lease, as a worker of this machine names it, held by a process that has exited.
    const exited = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const dead = thisProcess().replace(/^\d+(\.\d+)?@/, `${exited.stdout.trim()}.1@`);
    await store.claim({
      listener: PLAIN,
      now,
      leaseMs: 600_000,
      limit: 1,
      ordered: false,
      leaseToken: 'worker',
    });
    await store.close();
    const db = new DatabaseSync(path);
    db.prepare('UPDATE idgov_webhook_outbox SET lease_token = ?').run(`${dead}/worker`);
    db.close();
    const status = await idgov(['outbox', 'status', '--db', path]);
    expect(status.stdout).toMatch(/leased: \S+ by \d+\.1@\S+ until \S+ \(that process is gone\)/);
    const retried = await idgov(['outbox', 'retry', '--db', path, id(1)]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/retried/);
    expect(retried.stdout + retried.stderr).not.toMatch(/in flight/);
    // A live holder's lease still holds: this process's own.
    const again = new SqliteOutboxStore({ path });
    await again.claim({
      listener: PLAIN,
      now: Date.now(),
      leaseMs: 600_000,
      limit: 1,
      ordered: false,
      leaseToken: 'live',
    });
    await again.close();
    const held = await idgov(['outbox', 'retry', '--db', path, id(1)]);
    expect(held.code).toBe(1);
    expect(held.stdout + held.stderr).toMatch(/in flight/);
  },
);
