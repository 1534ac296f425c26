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
import { IdGovClient, type Logger } from '../../src/index.ts';
import { TaskSync } from '../../src/sync/index.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant, type WireTask } from '../../src/testing/index.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { copyAndFeed, feedProblems } from '../helpers/change-feed.ts';
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

/**
 * A client of `tenant` whose searches by ticket ID `serve` may answer otherwise: given the service's
 * answer (`answer()`, asked for when wanted), the sort asked for and the page token sent.
 */
function clientOf(
  tenant: FakeTenant,
  serve?: (answer: () => Promise<Answer>, sortBy: string, pageToken?: string) => Promise<Answer | Response>,
  logger?: Logger,
): IdGovClient {
  return new IdGovClient({
    baseUrl: tenant.baseUrl,
    credentials: tenant.client,
    ...(logger ? { logger } : { logLevel: 'off' }),
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (!serve || !request.url.endsWith('/search/tasks')) return fetch(request);
      const { sortBy, pageToken } = (await request.clone().json()) as { sortBy?: string; pageToken?: string };
      if (sortBy !== TICKET && sortBy !== REVERSE) return fetch(request);
      const served = await serve(
        async () => (await (await fetch(request)).json()) as Answer,
        sortBy,
        pageToken,
      );
      return served instanceof Response ? served : Response.json(served);
    },
  });
}

/** `serve` for clientOf that changes each answer by `rewrite`. */
const rewriting =
  (rewrite: (answer: Answer) => Answer) =>
  async (answer: () => Promise<Answer>): Promise<Answer> =>
    rewrite(await answer());

async function syncOnce(client: IdGovClient, path: string, concurrency = 4, logger?: Logger) {
  const sync = new TaskSync({
    client,
    store: new SqliteSyncStore({ path }),
    concurrency,
    ...(logger ? { logger } : { logLevel: 'off' }),
  });
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

  it('two cursors page it from both ends too, once the other has nothing else to do', async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const before = { ...tenant.stats.searchPagesBySort };
      const path = dbPath();
      await syncOnce(clientOf(tenant), path, 2);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      const { ticket, reverse } = pagesSince(tenant, before);
      expect(ticket).toBeGreaterThanOrEqual(5);
      expect(reverse).toBeGreaterThanOrEqual(5);
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

  it("a burst at the run's very end (answers without a Date header: the run ends at the newest task) is copied whole, though its window ends at its instant", async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const client = new IdGovClient({
        baseUrl: tenant.baseUrl,
        credentials: tenant.client,
        logLevel: 'off',
        fetch: async (input, init) => {
          const answer = await fetch(new Request(input, init));
          const headers = new Headers(answer.headers);
          headers.delete('date');
          return new Response(answer.body, { status: answer.status, headers });
        },
      });
      const before = { ...tenant.stats.searchPagesBySort };
      const path = dbPath();
      expect((await syncOnce(client, path, 2)).complete).toBe(true);
      expect(Math.min(...Object.values(pagesSince(tenant, before)))).toBeGreaterThan(0);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
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
    it(`against a service that answers ${what}, the end that finds it pages alone to its last page: the copy is exact`, async () => {
      const tenant = burstTenant();
      const { close } = await tenant.listen();
      try {
        const before = { ...tenant.stats.searchPagesBySort };
        const path = dbPath();
        const summary = await syncOnce(clientOf(tenant, rewriting(rewrite)), path);
        expect(summary.complete).toBe(true);
        expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
        // The ends were made, one found the service's order unfit for a meeting, and it did not
        // stop short: it paged the whole burst.
        const { ticket, reverse } = pagesSince(tenant, before);
        expect(Math.max(ticket, reverse)).toBeGreaterThanOrEqual(BURST / 100);
      } finally {
        await close();
      }
    });
  }
});

describe('a burst paged from both ends against a hostile service', () => {
  it('a task put on a page from outside the query (created months before) ends no end early', async () => {
    const tenant = burstTenant();
    const old = tenant.tasks[0];
    let pages = 0;
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      const serve = async (answer: () => Promise<Answer>, sortBy: string) => {
        const served = await answer();
        // Its ticket ID, far below the burst's, would have met the other end at once; the IDs
        // after it would look out of order.
        if (sortBy === REVERSE && ++pages === 3) served.list.splice(50, 0, { task: old });
        return served;
      };
      const before = { ...tenant.stats.searchPagesBySort };
      expect((await syncOnce(clientOf(tenant, serve), path)).complete).toBe(true);
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      // Nor is it taken for the service's ticket order being broken: the ends still meet, and
      // neither pages the whole burst alone.
      const { ticket, reverse } = pagesSince(tenant, before);
      expect(Math.max(ticket, reverse)).toBeLessThan(BURST / 100);
    } finally {
      await close();
    }
  });

  it('ticket order broken on the page where the descending end would hand over: the gap is still paged', async () => {
    const tenant = burstTenant();
    // The burst's older half has dense ticket IDs, its newer half IDs 70 apart (as a filtered
    // sync sees them): the descending end's pages reach far, the ascending end's little.
    const tasks = tenant.tasks as WireTask[];
    for (let n = 0; n < BURST; n++) {
      const at = tasks.length - BURST + n;
      tasks[at] = { ...tasks[at], numericId: String(n < 1000 ? 100_000 + n : 107_500 + (n - 1000) * 70) };
    }
    const asked = { up: 0, down: 0, downServed: 0, upReached: 0n };
    const until = async (ready: () => boolean) => {
      while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const serve = async (answer: () => Promise<Answer>, sortBy: string) => {
      const up = sortBy === TICKET ? ++asked.up : 0;
      const down = sortBy === REVERSE ? ++asked.down : 0;
      // The ascending end's pages come late, so that the descending end is near when it breaks order.
      if (up >= 5 && up <= 8) await until(() => asked.down >= 9);
      if (up >= 9) await until(() => asked.downServed >= 10);
      const served = await answer();
      if (down === 9) await until(() => asked.upReached >= 100_799n);
      if (down === 10) [served.list[0], served.list[1]] = [served.list[1] ?? null, served.list[0] ?? null];
      for (const view of up ? served.list : []) {
        const id = BigInt(view?.task?.numericId ?? 0);
        if (id > asked.upReached) asked.upReached = id;
      }
      if (down) asked.downServed = Math.max(asked.downServed, down);
      return served;
    };
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      expect((await syncOnce(clientOf(tenant, serve), path)).complete).toBe(true);
      expect(asked.down).toBeGreaterThanOrEqual(10);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
    } finally {
      await close();
    }
  });

  // Services whose page tokens die, each as `expiring` makes it (the refusals it made so far, by
  // `refused()`), with how many it must have made and what the two ends' pages must show.
  const expiring: Array<{
    what: string;
    service(): { serve: Parameters<typeof clientOf>[1]; refused(): number };
    least: number;
    pages(ticket: number, reverse: number): void;
  }> = [
    {
      what: 'page tokens of an end that expire twice in one burst: the end starts its query again each time, and the copy is exact',
      service() {
        let tokens = 0;
        let refused = 0;
        return {
          serve: async (answer, sortBy, pageToken) => {
            // The ascending end's 3rd and 6th pages asked with a token: the token is gone.
            if (sortBy === TICKET && pageToken && [3, 6].includes(++tokens)) {
              refused += 1;
              return Response.json({ code: 5, message: 'page token expired' }, { status: 410 });
            }
            return answer();
          },
          refused: () => refused,
        };
      },
      least: 2,
      pages: (ticket) => expect(ticket).toBeGreaterThan(0),
    },
    {
      what: 'page tokens that live for three pages of a query: each end started again leaves out what it read, and the ends still meet',
      service() {
        const since: Record<string, number> = {};
        let refused = 0;
        return {
          serve: async (answer, sortBy, pageToken) => {
            if (!pageToken) since[sortBy] = 0;
            else if (++since[sortBy]! >= 3) {
              refused += 1;
              return Response.json({ code: 5, message: 'page token expired' }, { status: 410 });
            }
            return answer();
          },
          refused: () => refused,
        };
      },
      least: 3,
      pages: (ticket, reverse) => expect(ticket + reverse).toBeLessThanOrEqual(BURST / 100 + 4),
    },
  ];
  for (const { what, service, least, pages } of expiring) {
    it(what, async () => {
      const tenant = burstTenant();
      const { serve, refused } = service();
      const { close } = await tenant.listen();
      try {
        const before = { ...tenant.stats.searchPagesBySort };
        const path = dbPath();
        expect((await syncOnce(clientOf(tenant, serve), path)).complete).toBe(true);
        expect(refused()).toBeGreaterThanOrEqual(least);
        expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
        // The ends still met: neither paged the whole burst alone.
        const { ticket, reverse } = pagesSince(tenant, before);
        expect(reverse).toBeLessThan(BURST / 100);
        pages(ticket, reverse);
      } finally {
        await close();
      }
    });
  }

  it('a service that orders ticket IDs as text: edges that cross by number are no meeting, and the copy is exact', async () => {
    const tenant = burstTenant();
    // The burst's ticket IDs as the service sends them: its first half 10000 up, its second 9000
    // up, so that by text the second sorts first. Each end then reads its half in number order.
    const first = (tenant.tasks.length - BURST).toString();
    const sent = (id: string) => {
      const n = Number(id) - Number((tenant.tasks[Number(first)] as WireTask).numericId);
      return n < 0 || n >= BURST ? id : String(n < BURST / 2 ? 10_000 + n : 9_000 + n - BURST / 2);
    };
    const asText = async (answer: () => Promise<Answer>) => {
      const served = await answer();
      for (const view of served.list)
        if (view?.task) view.task = { ...view.task, numericId: sent(`${view.task.numericId}`) };
      return served;
    };
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      expect((await syncOnce(clientOf(tenant, asText), path)).complete).toBe(true);
      const copied = copiedTasks(path);
      expect(tenant.tasks.filter((task) => !copied.has(task.id as string))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a service that refuses the ticket order where an end pages alone: that end pages the burst by creation time', async () => {
    const tenant = burstTenant();
    let down = 0;
    const serve = async (answer: () => Promise<Answer>, sortBy: string) => {
      if (sortBy !== REVERSE) return answer();
      down += 1;
      // Its second page breaks the order (the end pages alone, the other stops); then the sort is refused.
      if (down >= 3) return Response.json({ code: 3, message: 'unknown sortBy' }, { status: 400 });
      const served = await answer();
      if (down === 2) [served.list[0], served.list[1]] = [served.list[1] ?? null, served.list[0] ?? null];
      return served;
    };
    const { close } = await tenant.listen();
    try {
      const path = dbPath();
      const warnings: string[] = [];
      const drop = () => {};
      const logger: Logger = { error: drop, warn: (m) => warnings.push(m), info: drop, debug: drop };
      expect((await syncOnce(clientOf(tenant, serve), path, 4, logger)).complete).toBe(true);
      expect(down).toBeGreaterThanOrEqual(3);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      expect(warnings).toEqual([
        expect.stringMatching(/refused sortBy TASK_SEARCH_SORT_BY_REVERSE_TICKET_ID/),
      ]);
    } finally {
      await close();
    }
  });

  it('a service that refuses the ticket order: the burst is paged from one end, said once, and the copy is exact', async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const warnings: string[] = [];
      const drop = () => {};
      const logger: Logger = { error: drop, warn: (m) => warnings.push(m), info: drop, debug: drop };
      const refuse = async () => Response.json({ code: 3, message: 'unknown sortBy' }, { status: 400 });
      const path = dbPath();
      const summary = await syncOnce(clientOf(tenant, refuse, logger), path, 4, logger);
      expect(summary.complete).toBe(true);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      expect(warnings).toEqual([
        expect.stringMatching(/refused sortBy TASK_SEARCH_SORT_BY_(REVERSE_)?TICKET_ID/),
      ]);
    } finally {
      await close();
    }
  });
});

describe('a burst paged from both ends while its tasks change', () => {
  /**
   * The tasks of each page `slow` answers get a comment just after the service read them, and its
   * answer is held back `ms`: the other end fetches the newer versions of the tasks where the two
   * ends overlap, and commits them first.
   */
  const lagging =
    (tenant: FakeTenant, slow: string, ms: number) =>
    async (answer: () => Promise<Answer>, sortBy: string): Promise<Answer> => {
      const served = await answer();
      if (sortBy !== slow) return served;
      const ids = new Set(served.list.map((view) => view?.task?.id));
      tenant.commentOnTasks(ids.size, (task) => ids.has(task.id));
      await new Promise((resolve) => setTimeout(resolve, ms));
      return served;
    };

  // The descending end lagging: the ascending end, paging on, reads the newer versions of the tasks
  // of the descending end's page in flight, and commits them first.
  it("an end whose answers come late writes no older version over the other end's newer one: the feed holds no change that did not happen", async () => {
    const tenant = burstTenant();
    const { close } = await tenant.listen();
    try {
      const before = { ...tenant.stats.searchPagesBySort };
      const path = dbPath();
      const client = clientOf(tenant, lagging(tenant, REVERSE, 400));
      expect((await syncOnce(client, path)).complete).toBe(true);
      const { ticket, reverse } = pagesSince(tenant, before);
      expect(Math.min(ticket, reverse)).toBeGreaterThan(0);
      // A second run finds the comments the first did not see, as incremental runs do.
      expect((await syncOnce(clientOf(tenant), path)).complete).toBe(true);
      expect(differences(copiedTasks(path), expectedTasks(tenant.tasks))).toEqual([]);
      const { copy, feed } = await copyAndFeed(new SqliteSyncStore({ path }));
      expect(feedProblems(copy, feed)).toEqual([]);
      // Each task got at most one comment: its feed goes from no comment to one, never back.
      const comments = new Map<string, number>();
      const back: string[] = [];
      for (const change of feed) {
        const count = (JSON.parse(change.json) as { commentCount?: number }).commentCount ?? 0;
        if (count < (comments.get(change.taskId) ?? 0)) back.push(`${change.taskId} at seq ${change.seq}`);
        comments.set(change.taskId, count);
      }
      expect(back).toEqual([]);
    } finally {
      await close();
    }
  });
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
        // The first kill once both ends page the burst, a few pages in and before they meet (its 20
        // pages): a kill at a page count could land before the burst was paired, and a window deeper
        // in its burst is never paired after. The next kills at random pages.
        const pairedPages = 2 + random.int(6);
        let atFirstKill: { ticket: number; reverse: number } | undefined;
        const { kills, result } = await syncThroughKills(tenant, db, (k) => {
          if (k === 0) {
            return () => {
              const ends = pagesSince(tenant, before);
              if (ends.ticket === 0 || ends.reverse === 0 || ends.ticket + ends.reverse < pairedPages)
                return false;
              atFirstKill = ends;
              return true;
            };
          }
          return k < 3 ? 9 + random.int(12) : undefined;
        });
        expect(result.code, result.stderr).toBe(0);
        expect(kills, 'the burst was never paged from both ends').toBeGreaterThan(0);
        expect(differences(copiedTasks(db), expectedTasks(tenant.tasks))).toEqual([]);
        // Each end's window was paged again after the kill (and the copy, above, holds every task).
        const { ticket, reverse } = pagesSince(tenant, before);
        expect(ticket).toBeGreaterThan(atFirstKill?.ticket ?? 0);
        expect(reverse).toBeGreaterThan(atFirstKill?.reverse ?? 0);
      } finally {
        await close();
      }
    }, 120_000);
  }
});
