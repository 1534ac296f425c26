/**
 * A burst of tasks created at one instant (an access review opening) can only be paged with
 * tokens, a page at a time; once half the cursors are idle, two page it at once, one by ascending
 * ticket ID and one by descending, until they meet. The copy stays exact: against a service that
 * pages so, against one that does not (ticket IDs out of order, or none), and across SIGKILLs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IdGovClient } from '../../src/index.ts';
import { TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant, type WireTask } from '../../src/testing/index.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { syncThroughKills } from '../helpers/child.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-sync-bursts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dbPath = () => join(dir, `${crypto.randomUUID()}.db`);

const BURST = 2_000;
const TICKET = 'TASK_SEARCH_SORT_BY_TICKET_ID';
const REVERSE = 'TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID';

/**
 * A tenant of a few hundred tasks over 90 days and a burst of `BURST` created at one instant, its
 * newest: once the older windows are done, three of four cursors are idle while the burst's first
 * pages come in. Answers take 50 ms, so that an idle cursor pairs the burst before its second page
 * at one instant commits (a window deeper in its burst is not paired).
 */
function burstTenant(options: ConstructorParameters<typeof FakeTenant>[0] = {}): FakeTenant {
  const tenant = new FakeTenant({ tasks: 300, seed: 3, latencyMs: 50, ...options });
  tenant.createTasks(BURST);
  return tenant;
}

type Answer = { list: Array<{ task?: WireTask } | null>; nextPageToken?: string };

/** A client of `tenant` whose answers to searches by ticket ID `rewrite` may change. */
function clientOf(tenant: FakeTenant, rewrite?: (answer: Answer) => Answer): IdGovClient {
  return new IdGovClient({
    baseUrl: tenant.baseUrl,
    credentials: tenant.client,
    logLevel: 'off',
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const answer = await fetch(request.clone());
      if (!rewrite || !request.url.endsWith('/search/tasks') || answer.status !== 200) return answer;
      const { sortBy } = (await request.json()) as { sortBy?: string };
      if (sortBy !== TICKET && sortBy !== REVERSE) return answer;
      return Response.json(rewrite((await answer.json()) as Answer));
    },
  });
}

async function syncOnce(client: IdGovClient, path: string, concurrency = 4) {
  const sync = new TaskSync({ client, store: new SqliteSyncStore({ path }), concurrency, logLevel: 'off' });
  try {
    return await sync.run();
  } finally {
    await sync.close();
  }
}

/** The tenant's answered search pages by sort since `before` (a copy of its counts then). */
function pagesSince(tenant: FakeTenant, before: Record<string, number>) {
  const now = tenant.stats.searchPagesBySort;
  const of = (sort: string) => (now[sort] ?? 0) - (before[sort] ?? 0);
  return { ticket: of(TICKET), reverse: of(REVERSE) };
}

describe('a burst of tasks created at one instant', () => {
  it('is paged from both ends at once, about once over, and the copy equals the tenant', async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const before = { ...tenant.stats.searchPagesBySort };
      const pagesBefore = tenant.stats.searchPages;
      const path = dbPath();
      const summary = await syncOnce(clientOf(tenant), path);
      expect(summary).toMatchObject({ complete: true, tasksNew: 300 + BURST });
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      const { ticket, reverse } = pagesSince(tenant, before);
      // Both ends paged: each about half the burst's 20 pages.
      expect(ticket).toBeGreaterThanOrEqual(5);
      expect(reverse).toBeGreaterThanOrEqual(5);
      // What it costs: the burst's start, paged again in ticket order (a page), and where the ends
      // meet (a page each at most, and one asked for ahead before the meeting was known).
      expect(ticket + reverse).toBeLessThanOrEqual(BURST / 100 + 4);
      expect(tenant.stats.searchPages - pagesBefore).toBeLessThanOrEqual((300 + BURST) / 100 + 12);
    } finally {
      await close();
    }
  });

  it('one cursor pages it alone, by creation time and its tokens', async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const before = { ...tenant.stats.searchPagesBySort };
      const path = dbPath();
      await syncOnce(clientOf(tenant), path, 1);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      expect(pagesSince(tenant, before)).toEqual({ ticket: 0, reverse: 0 });
    } finally {
      await close();
    }
  });

  const hostile: Array<[string, (answer: Answer) => Answer]> = [
    ['ticket IDs out of order within a page', (answer) => ({ ...answer, list: [...answer.list].reverse() })],
    [
      'tasks without a ticket ID',
      (answer) => ({
        ...answer,
        list: answer.list.map((view) =>
          view?.task ? { ...view, task: { ...view.task, numericId: undefined } } : view,
        ),
      }),
    ],
    [
      'ticket IDs that are no integers',
      (answer) => ({
        ...answer,
        list: answer.list.map((view) =>
          view?.task ? { ...view, task: { ...view.task, numericId: `T-${view.task.numericId}` } } : view,
        ),
      }),
    ],
  ];
  for (const [what, rewrite] of hostile) {
    it(`against a service that answers ${what}, each end pages alone to its last page: the copy is exact`, async () => {
      const tenant = burstTenant();
      const { close } = await tenant.listen();
      try {
        const before = { ...tenant.stats.searchPagesBySort };
        const path = dbPath();
        const summary = await syncOnce(clientOf(tenant, rewrite), path);
        expect(summary.complete).toBe(true);
        expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
        // The ends were made, found the service's order unfit for a meeting, and no end stopped
        // short: at least one of them paged the whole burst.
        const { ticket, reverse } = pagesSince(tenant, before);
        expect(Math.max(ticket, reverse)).toBeGreaterThanOrEqual(BURST / 100);
      } finally {
        await close();
      }
    });
  }
});

describe('a sync of a burst paged from both ends, SIGKILLed at random pages', () => {
  for (let seed = 1; seed <= 3; seed++) {
    it(`seed ${seed}: resumes each end after every kill, and the copy equals the tenant`, async () => {
      const tenant = burstTenant({
        faults: { serverError: 0.03, rateLimit: 0.01, drop: 0.01, retryAfterSeconds: 0, seed },
      });
      const { close } = await tenant.listen();
      try {
        const random = new SeededRandom(seed * 104_729);
        const db = join(dir, `crash-${seed}.db`);
        const before = { ...tenant.stats.searchPagesBySort };
        // Once the burst is paged from both ends (its second page at one instant, the run's seventh
        // or so), and before they meet.
        const { kills, result } = await syncThroughKills(tenant, db, (k) =>
          k < 3 ? 9 + random.int(12) : undefined,
        );
        expect(result.code, result.stderr).toBe(0);
        expect(kills).toBeGreaterThan(0);
        expect(differences(copiedTasks(db), expectedTasks(tenant.tasks))).toEqual([]);
        const { ticket, reverse } = pagesSince(tenant, before);
        expect(ticket).toBeGreaterThan(0);
        expect(reverse).toBeGreaterThan(0);
      } finally {
        await close();
      }
    }, 120_000);
  }
});
