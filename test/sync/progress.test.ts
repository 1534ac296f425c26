/**
 * What a sync's progress tells: the share covered never goes back, even when a dead worker's
 * window is taken over from its last committed page; waiting on another's lease is told once a holder.
 */
import { expect, it } from 'vitest';
import { Hooks } from '../../src/core/hooks.ts';
import type { Logger } from '../../src/index.ts';
import type { SyncEvents, SyncProgress, SyncWaitingEvent } from '../../src/sync/index.ts';
import { SyncProgressMeter } from '../../src/sync/run/progress.ts';

const quiet: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
const run = { id: 1, kind: 'full', startedAt: 1_000, resumed: false } as const;
const none = { new: 0, changed: 0, deleted: 0 };
const window = (id: number, from: number, to: number, cursor = from) => ({
  id,
  from,
  to,
  cursor,
  queryFrom: cursor,
  queryTo: to,
  token: undefined,
});

it('the share covered never goes back when a window taken over adds time left', () => {
  const hooks = new Hooks<SyncEvents>(quiet, undefined);
  const told: SyncProgress[] = [];
  hooks.on('progress', (p) => told.push(p));
  const meter = new SyncProgressMeter(hooks, run);
  meter.window('claimed', window(1, 0, 100));
  meter.page(none, 10, window(1, 0, 100), 90, 100); // 90 of 100 covered
  // A dead worker's window, claimed from its checkpoint: 400 ms of creation time left.
  meter.window('claimed', window(2, 100, 1_000, 600));
  meter.page(none, 10, window(2, 100, 1_000, 600), 650, 1_000);
  expect(told.map((p) => p.covered)).toEqual([0.9, 0.9]);
  expect(told.every((p, i) => i === 0 || p.covered >= (told[i - 1]?.covered ?? 0))).toBe(true);
});

it('says once for each worker it waits for, to the hook and the log', () => {
  const warned: string[] = [];
  const logger: Logger = { ...quiet, warn: (m) => void warned.push(m) };
  const hooks = new Hooks<SyncEvents>(logger, undefined);
  const waits: SyncWaitingEvent[] = [];
  hooks.on('waiting', (w) => waits.push(w));
  const meter = new SyncProgressMeter(hooks, run);
  const until = Date.UTC(2026, 10, 27, 8);
  // The store's clock says 9 s are left; this machine's, 20 s behind it, would say 29. Worker
  // host-3's two cursors are one worker to wait for, told with the lease that runs out last.
  const held = [
    { holder: 'host-3 pid 42 #abcd/0', until: until - 1_000, leftMs: 8_000 },
    { holder: 'host-3 pid 42 #abcd/1', until, leftMs: 9_000 },
    { holder: 'host-4 pid 7 #ef01/2', until },
  ];
  meter.waiting(held, until - 4_000, logger);
  meter.waiting(held, until - 4_000, logger);
  expect(waits).toEqual([
    { holder: 'host-3 pid 42 #abcd', until: '2026-11-27T08:00:00.000Z', runsOutInMs: 9_000 },
    // A store that gives no time left: the lease's end by the sync's clock.
    { holder: 'host-4 pid 7 #ef01', until: '2026-11-27T08:00:00.000Z', runsOutInMs: 4_000 },
  ]);
  expect(warned).toEqual([
    'task sync: waiting for work held by host-3 pid 42 #abcd, whose lease runs out at 2026-11-27T08:00:00.000Z unless renewed',
    'task sync: waiting for work held by host-4 pid 7 #ef01, whose lease runs out at 2026-11-27T08:00:00.000Z unless renewed',
  ]);
});

it('estimates the tasks left from the density each window found, not from the share of time covered', () => {
  const hooks = new Hooks<SyncEvents>(quiet, undefined);
  const told: SyncProgress[] = [];
  hooks.on('progress', (p) => told.push(p));
  const meter = new SyncProgressMeter(hooks, run);
  // The old half of the range is sparse, the recent half dense (as a real tenant's is).
  meter.window('claimed', window(1, 0, 100_000));
  meter.window('claimed', window(2, 100_000, 101_000));
  meter.page(none, 100, window(1, 0, 100_000), 50_000, 100_000); // 100 tasks in 50,000 ms
  meter.page(none, 100, window(2, 100_000, 101_000), 100_010, 101_000); // 100 tasks in 10 ms
  // A page of a burst (all of one instant) covers no time: it does not make the window look denser.
  meter.page(none, 100, window(2, 100_000, 101_000), 100_010, 101_000);
  const last = told.at(-1) as SyncProgress;
  // Window 1: 50,000 ms left at 0.002 a ms; window 2: 990 ms left at 10 a ms.
  expect(last.tasksLeft).toBe(100 + 9_900);
  // Half the time range is covered, but about 3% of the tasks.
  expect(last.covered).toBeGreaterThan(0.49);
  expect(last.etaMs).toBeGreaterThan(0);
  expect(last.tasks / (last.tasks + (last.tasksLeft ?? 0))).toBeLessThan(0.03);
});

it('estimates nothing before a page showed a density, nor while a refresh of unknown size goes on', () => {
  const hooks = new Hooks<SyncEvents>(quiet, undefined);
  const told: SyncProgress[] = [];
  hooks.on('progress', (p) => told.push(p));
  const meter = new SyncProgressMeter(hooks, { ...run, kind: 'incremental' });
  meter.window('claimed', window(1, 0, 1_000));
  // A probe's page, before any window paged: no density yet.
  meter.fetched(1);
  expect(told.at(-1)).toMatchObject({ tasksLeft: undefined, etaMs: undefined });
  meter.page(none, 10, window(1, 0, 1_000), 1_000, 1_000);
  meter.window('done', window(1, 0, 1_000, 1_000));
  expect(told.at(-1)?.tasksLeft).toBe(0);
  meter.refreshed(none, 1, 100);
  expect(told.at(-1)).toMatchObject({ tasksLeft: undefined, etaMs: undefined });
});

it('a split is no progress: the time it takes from a window is not counted covered, nor read as empty time', () => {
  const hooks = new Hooks<SyncEvents>(quiet, undefined);
  const told: SyncProgress[] = [];
  hooks.on('progress', (p) => told.push(p));
  const meter = new SyncProgressMeter(hooks, run);
  meter.window('claimed', window(1, 0, 1_000_000));
  meter.page(none, 100, window(1, 0, 1_000_000), 1_000, 1_000_000); // 100 tasks in 1,000 ms
  const before = told.at(-1) as SyncProgress;
  // Another cursor split the window just past its cursor: its next page learns `to` moved back.
  meter.page(none, 100, window(1, 0, 1_000_000, 1_000), 1_000, 1_001);
  const after = told.at(-1) as SyncProgress;
  expect(before.covered).toBeLessThan(0.01);
  expect(after.covered).toBeLessThan(0.01 + before.covered);
  // The window's density is still 0.1 a ms: the split-off time was not taken as paged and empty.
  meter.window('split', undefined);
  meter.window('claimed', window(2, 1_001, 1_000_000));
  meter.page(none, 0, window(1, 0, 1_000_000, 1_000), 1_000, 1_001);
  expect(told.at(-1)?.tasksLeft).toBeGreaterThan(90_000);
});

it("a window split off and claimed before its parent's next page is counted once, and the run ends at 100%", () => {
  const hooks = new Hooks<SyncEvents>(quiet, undefined);
  const told: SyncProgress[] = [];
  hooks.on('progress', (p) => told.push(p));
  const meter = new SyncProgressMeter(hooks, run);
  meter.window('claimed', window(1, 0, 10_000));
  meter.page(none, 100, window(1, 0, 10_000), 1_000, 10_000);
  // Split at 5,000; the half is claimed, and paged to its end, before the parent's next page.
  meter.window('split', undefined);
  meter.window('claimed', window(2, 5_000, 10_000));
  meter.page(none, 100, window(2, 5_000, 10_000), 10_000, 10_000);
  meter.window('done', window(2, 5_000, 10_000, 10_000));
  meter.page(none, 100, window(1, 0, 10_000, 1_000), 5_000, 5_000);
  meter.window('done', window(1, 0, 5_000, 5_000));
  meter.ended(none);
  meter.page(none, 0, window(1, 0, 5_000, 5_000), 5_000, 5_000);
  const last = told.at(-1) as SyncProgress;
  expect(last.covered).toBe(1);
  expect(last.tasksLeft).toBe(0);
});
