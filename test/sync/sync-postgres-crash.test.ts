/**
 * Many workers on one PostgreSQL copy, shown the honest way: four `idgov sync --postgres` processes
 * share a run of 20,000 tasks with bursts, faults on (5xx, 429, dropped connections), and one of
 * them is SIGKILLed twice and restarted. Its windows pass on once their leases run out; the copy
 * must then equal the tenant, with the pages fetched under 1.2x a clean run of four workers. Then
 * two workers' incremental run makes it equal again after the tenant changed. Through both, the change
 * feed holds each change to the copy once, and folds to the copy.
 * SYNC_CRASH_TASKS sets the size (default 20,000).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { byTask, copyAndFeed, expectedChanges, fold } from '../helpers/change-feed.ts';
import { type Child, startChild, tenantEnv } from '../helpers/child.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { copiedTasksPg, differences, expectedTasks } from '../helpers/task-copy.ts';

const TASKS = Number(process.env.SYNC_CRASH_TASKS ?? 20_000);

const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL sync crash test: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

/** `idgov sync --postgres` in a child process, as a user runs it on each machine. */
function startWorker(tenant: FakeTenant, prefix: string): Child {
  return startChild(
    'src/cli/idgov.ts',
    ['sync', '--postgres', pg?.url ?? '', '--table', prefix, '--concurrency', '4', '--lease', '5'],
    tenantEnv(tenant, 'error'),
  );
}

/** The copy at `prefix` and its change feed, as a reader sees them. */
const readCopy = (prefix: string) =>
  copyAndFeed(new PostgresSyncStore({ connectionString: pg?.url, table: prefix, logLevel: 'error' }));

/** The kinds of the runs of the copy at `prefix`, in the order begun. */
async function runKinds(prefix: string): Promise<string[]> {
  const { default: Pg } = await import('pg');
  const client = new Pg.Client({ connectionString: pg?.url });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT kind FROM ${prefix}_sync_runs ORDER BY id`);
    return rows.map((row) => row.kind);
  } finally {
    await client.end();
  }
}

/** Resolves once the tenant served `pages` more search pages than `from`, or `child` exited. */
async function pagesServed(tenant: FakeTenant, from: number, pages: number, child: Child): Promise<void> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (!exited && tenant.stats.searchPages - from < pages) await new Promise((r) => setTimeout(r, 2));
}

/** Expects `worker` to end a run of `kind` with exit 0. */
async function expectDone(worker: Child, kind: 'full' | 'incremental'): Promise<void> {
  const result = await worker.exited;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toMatch(new RegExp(`^Done: ${kind} run`, 'm'));
}

describe.skipIf(!pg)(`four workers on one PostgreSQL copy, ${TASKS} tasks with bursts, faults on`, () => {
  const tenant = new FakeTenant({
    history: TASKS,
    seed: 41,
    faults: { serverError: 0.03, rateLimit: 0.01, drop: 0.01, retryAfterSeconds: 0, seed: 6 },
  });
  let close: () => Promise<void>;
  let cleanPages = 0;
  const copy = `${pg?.schema}.crash`;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    const before = tenant.stats.searchPages;
    const clean = Array.from({ length: 4 }, () => startWorker(tenant, `${pg?.schema}.clean`));
    for (const worker of clean) await expectDone(worker, 'full');
    cleanPages = tenant.stats.searchPages - before;
  }, 300_000);
  afterAll(() => close());

  it('one worker SIGKILLed twice and restarted: the copy equals the tenant, in at most 1.2x the pages of a clean run', async () => {
    const before = tenant.stats.searchPages;
    const others = Array.from({ length: 3 }, () => startWorker(tenant, copy));
    let victim = startWorker(tenant, copy);
    for (const share of [0.2, 0.5]) {
      // The worker that takes the victim's place joins the run (its first line on stderr) before
      // the victim dies. Started at the kill, on a busy machine it could reach the copy only after
      // the others had finished the run, and begin another.
      const next = startWorker(tenant, copy);
      await new Promise((resolve) => {
        next.child.stderr?.once('data', resolve);
        setTimeout(resolve, 20_000);
      });
      await pagesServed(tenant, before, Math.floor(cleanPages * share), victim);
      victim.child.kill('SIGKILL');
      const killed = await victim.exited;
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      victim = next;
    }
    for (const worker of [...others, victim]) await expectDone(worker, 'full');
    expect(differences(await copiedTasksPg(pg?.url ?? '', copy), expectedTasks(tenant.tasks))).toEqual([]);
    expect(tenant.stats.searchPages - before).toBeLessThanOrEqual(Math.ceil(cleanPages * 1.2));
    // Each task created once in the feed, whatever pages were fetched twice.
    const { copy: copied, feed } = await readCopy(copy);
    expect(byTask(feed)).toEqual(expectedChanges(new Map(), copied));
    expect(fold(feed)).toEqual(copied);
  }, 300_000);

  it('then two workers make it equal again after the tenant changes, in one incremental run within its page budget', async () => {
    const openInCopy = [...(await copiedTasksPg(pg?.url ?? '', copy)).values()].filter(
      (t) => t.state === 'TASK_STATE_OPEN' && !t.deleted,
    ).length;
    const start = await readCopy(copy);
    tenant.closeTasks(Math.floor(TASKS / 50));
    const created = tenant.createTasks(Math.floor(TASKS / 40));
    tenant.deleteTasks(Math.floor(TASKS / 200), (task) => task.state === 'TASK_STATE_OPEN');
    const before = tenant.stats.searchPages;
    const workers = [startWorker(tenant, copy), startWorker(tenant, copy)];
    for (const worker of workers) await expectDone(worker, 'incremental');
    expect(differences(await copiedTasksPg(pg?.url ?? '', copy), expectedTasks(tenant.tasks))).toEqual([]);
    const end = await readCopy(copy);
    const last = start.feed.at(-1)?.seq ?? 0;
    expect(byTask(end.feed.filter((c) => c.seq > last))).toEqual(expectedChanges(start.copy, end.copy));
    expect(fold(end.feed)).toEqual(end.copy);
    // One run, begun by one worker and joined by the other, after the full one.
    expect(await runKinds(copy)).toEqual(['full', 'incremental']);
    // The new and the open tasks a page per 100, and 10% more; then the probe of includeActedAfter,
    // and a last page cut short for each of the 8 cursors (a window's end, the last batch of the refresh).
    expect(tenant.stats.searchPages - before).toBeLessThanOrEqual(
      Math.ceil(((created.length + openInCopy) / 100) * 1.1) + 1 + 8,
    );
  }, 300_000);
});
