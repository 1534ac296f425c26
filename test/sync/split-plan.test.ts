/**
 * Which window an idle cursor splits: the one whose split brings the run's end closest, which for a
 * window held in a burst is all that follows the burst, and for a window being paged half of what it
 * holds. Every store takes its splits from this plan.
 */
import { describe, expect, it } from 'vitest';
import { pairPlan, splitPlan, type WindowLoad } from '../../src/sync/split-plan.ts';

const MIN_TASKS = 200;
const MIN_SPAN_MS = 2; // as the engine's
const load = (window: Partial<WindowLoad> & Pick<WindowLoad, 'id'>): WindowLoad => ({
  from: 0,
  to: 100_000,
  cursor: 10_000,
  pages: 1,
  tasks: 100,
  still: 0,
  stalled: false,
  childUnpaged: false,
  ...window,
});

describe('splitPlan', () => {
  it('splits past a burst before the midpoint of a window being paged that holds more', () => {
    // Being paged: 0.01 tasks a ms over 90,000 ms left, 900 tasks. In a burst: 0.01 a ms before
    // the burst, 600 tasks after it, which wait for the burst's pages unless another cursor takes them.
    const paged = load({ id: 1 });
    const inBurst = load({
      id: 2,
      from: 0,
      to: 70_000,
      cursor: 10_000,
      pages: 5,
      tasks: 500,
      still: 400,
      stalled: true,
    });
    expect(splitPlan([paged, inBurst], MIN_TASKS, MIN_SPAN_MS)).toEqual({ id: 2, at: 10_001, to: 70_000 });
  });

  it('still splits the window being paged when it holds more than twice what waits behind a burst', () => {
    const paged = load({ id: 1, to: 200_000 }); // 1,900 tasks left
    const inBurst = load({ id: 2, to: 70_000, pages: 5, tasks: 500, still: 400, stalled: true }); // 600
    expect(splitPlan([paged, inBurst], MIN_TASKS, MIN_SPAN_MS)).toEqual({ id: 1, at: 105_000, to: 200_000 });
  });

  it("judges what follows a burst that is all a window's pages found by the run's density", () => {
    // Window 2 found only a burst: its own density says nothing. The run's (0.01 a ms) puts 1,800
    // tasks after it, more than window 1 would save by a split.
    const paged = load({ id: 1, to: 150_000 }); // 1,400 tasks left
    const onlyBurst = load({
      id: 2,
      from: 0,
      to: 180_000,
      cursor: 0,
      pages: 3,
      tasks: 300,
      still: 300,
      stalled: true,
    });
    expect(splitPlan([paged, onlyBurst], MIN_TASKS, MIN_SPAN_MS)).toEqual({ id: 2, at: 1, to: 180_000 });
  });

  it('does not put a window whose page ended on two tasks of one millisecond before one that holds more', () => {
    // Window 2's last page ended on a tie (stalled), but no page of it stood still: its next page
    // moves on, so a split past the tie saves no more than any other.
    const paged = load({ id: 1, to: 70_000 }); // 600 tasks left
    const tie = load({ id: 2, to: 50_000, stalled: true }); // 400
    expect(splitPlan([paged, tie], MIN_TASKS, MIN_SPAN_MS)).toEqual({ id: 1, at: 40_000, to: 70_000 });
  });

  it('judges what follows a burst by its floor alone when the run says it holds little', () => {
    // Window 2 found only a burst, 3 ms before its end: at the run's density nothing follows it.
    const paged = load({ id: 1, to: 50_000 }); // 400 tasks left
    const burstNearEnd = load({
      id: 2,
      from: 500_000,
      to: 500_003,
      cursor: 500_000,
      tasks: 300,
      still: 300,
      stalled: true,
    });
    expect(splitPlan([paged, burstNearEnd], MIN_TASKS, MIN_SPAN_MS)).toEqual({
      id: 1,
      at: 30_000,
      to: 50_000,
    });
  });

  it('still looks past a burst when every window found only bursts', () => {
    const onlyBurst = load({ id: 1, cursor: 0, pages: 2, tasks: 200, still: 200, stalled: true });
    expect(splitPlan([onlyBurst], MIN_TASKS, MIN_SPAN_MS)).toEqual({ id: 1, at: 1, to: 100_000 });
  });

  it('leaves alone what a cursor finishes in a page or two, too little time to split, and a window whose half is unpaged', () => {
    const small = load({ id: 1, to: 25_000 }); // 150 tasks left
    // 2 ms left, dense enough to hold thousands of tasks: tasks of one instant cannot be split.
    const noTime = load({ id: 2, from: 99_990, cursor: 99_998, tasks: 100_000, still: 400, stalled: true });
    const halfUnpaged = load({ id: 3, to: 900_000, childUnpaged: true });
    expect(splitPlan([small, noTime, halfUnpaged], MIN_TASKS, MIN_SPAN_MS)).toBeUndefined();
    expect(splitPlan([{ ...noTime, to: 100_001 }], MIN_TASKS, MIN_SPAN_MS)).toEqual({
      id: 2,
      at: 99_999,
      to: 100_001,
    });
  });
});

describe('pairPlan', () => {
  const PAGE = 100;
  const burst = (window: Partial<WindowLoad> & Pick<WindowLoad, 'id'>) =>
    load({ from: 0, to: 10_001, cursor: 10_000, pages: 3, tasks: 300, still: 100, stalled: true, ...window });

  it('pairs the burst that has paged the least of itself, once it has paged a page at one instant', () => {
    expect(pairPlan([burst({ id: 1, still: 100 }), load({ id: 2 })], PAGE)).toBe(1);
    // Its cursor pages what it paged of the burst again, so one deeper in its burst is left alone.
    expect(pairPlan([burst({ id: 1, still: 200 })], PAGE)).toBeUndefined();
    // Not in a burst, or in one no page of which has kept the cursor at one instant: nothing to pair.
    expect(
      pairPlan([load({ id: 1 }), burst({ id: 2, still: 0 }), burst({ id: 3, stalled: false })], PAGE),
    ).toBeUndefined();
    // A burst with time after it (too few tasks there for a split) is paired too.
    expect(pairPlan([burst({ id: 4, to: 90_000 })], PAGE)).toBe(4);
  });

  it('pairs a window once: a paired one (or an end) is neither paired again nor split', () => {
    const paired = burst({ id: 1, paired: true });
    expect(pairPlan([paired], PAGE)).toBeUndefined();
    // What would otherwise be split past its burst: both ends page the window's time left as it is.
    const wide = burst({ id: 2, to: 70_000, tasks: 500, still: 100, paired: true });
    expect(splitPlan([wide], MIN_TASKS, MIN_SPAN_MS)).toBeUndefined();
    expect(splitPlan([{ ...wide, paired: false }], MIN_TASKS, MIN_SPAN_MS)).toEqual({
      id: 2,
      at: 10_001,
      to: 70_000,
    });
  });
});
