/**
 * A worker's leases while its cursors work: a lease another holder took stops the work and says
 * so; a lease the holder's own commit ended (its window done, its refresh committed) while a
 * renewal was on its way stops nothing and says nothing.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { SyncStore } from '../../src/sync/index.ts';
import type { RunContext } from '../../src/sync/run/context.ts';
import { holding, WorkerLeases } from '../../src/sync/run/worker-leases.ts';

const LEASE_MS = 6_000;
const lease = { holder: 'host-1 pid 7 #ab12/1', ms: LEASE_MS };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store whose leases are held until `end` (a commit that ends them, or another's takeover). */
function leaseStore() {
  const held = new Set<string>();
  const store = {
    async renewLeases(holders: readonly string[]) {
      return holders.filter((holder) => held.has(holder));
    },
    async endLeases() {},
  } as unknown as SyncStore;
  return { store, held };
}

/**
 * `work` under a lease its store holds, renewed by a worker's heartbeat, run for a lease: how often
 * it was told lost, and the warnings said.
 */
async function held(work: (ctx: RunContext, store: { held: Set<string> }) => Promise<void>) {
  const { store, held } = leaseStore();
  const leases = new WorkerLeases(store, LEASE_MS);
  const warned: string[] = [];
  const logger = { error() {}, info() {}, debug() {}, warn: (m: string) => void warned.push(m) };
  const ctx = { signal: new AbortController().signal, options: { logger } } as unknown as RunContext;
  held.add(lease.holder);
  let lost = 0;
  const worked = holding(
    ctx,
    { lease, leases, since: performance.now() },
    (inner) => work(inner, { held }),
    () => (lost += 1),
  );
  await vi.advanceTimersByTimeAsync(LEASE_MS);
  await worked;
  await leases.stop([lease.holder]);
  return { lost, warned };
}

it("a lease its own commit ended, seen by a renewal before the commit's answer, stops nothing and says nothing", async () => {
  const { lost, warned } = await held(async (_ctx, store) => {
    // The commit ends the lease in the database; its answer comes back after the next beat's renewal.
    store.held.delete(lease.holder);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 6 + 100));
  });
  expect(lost).toBe(0);
  expect(warned).toEqual([]);
});

it('a lease another holder took stops the work, which says so once', async () => {
  const { lost, warned } = await held(async ({ signal }, store) => {
    // Another holder takes the lease over while this one pages: its next request is aborted.
    store.held.delete(lease.holder);
    await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  });
  expect(lost).toBe(1);
  expect(warned).toEqual([
    'task sync: host-1 pid 7 #ab12/1 stopped its work: another holder took its lease over; it passes on to another holder',
  ]);
});
