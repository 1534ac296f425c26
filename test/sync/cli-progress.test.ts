/** What `idgov sync` says of the time left: nothing left is the run's end, never "1s left" at 100%. */
import { expect, it } from 'vitest';
import { timeLeft } from '../../src/cli/sync-command.ts';
import type { SyncProgress } from '../../src/sync/index.ts';

const progress = (tasksLeft: number | undefined, etaMs: number | undefined): SyncProgress => ({
  pages: 10,
  tasks: 1_000,
  windowsDone: 3,
  windowsLeft: 1,
  covered: 1,
  tasksLeft,
  tasksPerSecond: 500,
  etaMs,
});

it('says "finishing" when no task is left, the estimate otherwise, and "?" without one', () => {
  expect(timeLeft(progress(0, 0))).toBe('finishing');
  expect(timeLeft(progress(1_000, 2_000))).toBe('2s left');
  expect(timeLeft(progress(60_000, 120_000))).toBe('2m left');
  // A rate measured over a resumed run's first pages said 48836544m: past a day it is no estimate.
  expect(timeLeft(progress(60_000, 2_930_192_640_000))).toBe('? left');
  expect(timeLeft(progress(60_000, Number.POSITIVE_INFINITY))).toBe('? left');
  expect(timeLeft(progress(undefined, undefined))).toBe('? left');
});
