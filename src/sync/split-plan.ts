/**
 * Which window to split when a cursor is idle: the one whose split brings the run's end closest,
 * judged by what its pages found so far, so that the work moves to where the tasks are (real tenants
 * create tasks in bursts, and most of them recently), and which burst to page from both ends.
 * Shared by every store; the engine only hands over the limits.
 *
 * @module
 */

/** What a store knows of a window still to finish. */
export interface WindowLoad {
  readonly id: number;
  readonly from: number;
  readonly to: number;
  readonly cursor: number;
  /** Pages and tasks committed in it so far. */
  readonly pages: number;
  readonly tasks: number;
  /**
   * Of those tasks, how many came on pages that did not move the cursor (a burst of tasks created
   * at one instant): they tell nothing of what follows it.
   */
  readonly still: number;
  /** The window is in a burst (its last page did not move the cursor, or ended inside one). */
  readonly stalled: boolean;
  /** A half split off this window is not paged yet: what it holds, this one may not. */
  readonly childUnpaged: boolean;
  /** Paged from both ends of a burst already, or one of those ends (its order is not `created`). */
  readonly paired?: boolean;
}

/** Tasks a ms that `window` held so far, bursts left out; undefined before its first page. */
export function density(window: WindowLoad): number | undefined {
  if (window.pages === 0) return undefined;
  return (window.tasks - window.still) / Math.max(1, window.cursor - window.from);
}

/**
 * The tasks `window` is estimated to hold after its cursor: its density so far (bursts left out)
 * times the time left. None while nothing is known: before its first page (a run starts with one
 * window a cursor, so no cursor waits for that), or while the last half split off it has not shown
 * what it holds (tasks cluster, and a half of the time may hold none of them). A window in a burst
 * whose density says nothing (the burst is all it paged) is taken to hold more than `minTasks`
 * after it: its cursor is held by the burst for pages, and what follows is worth a look.
 */
export function tasksLeft(window: WindowLoad, minTasks: number): number {
  const known = density(window);
  if (known === undefined || window.childUnpaged) return 0;
  const left = (window.to - window.cursor) * known;
  return window.stalled && known === 0 ? minTasks + 1 : left;
}

/**
 * How much sooner the run may end if `window` is split, in tasks; 0 when it has no more than
 * `minTasks` left (splitting a window its cursor finishes in a page only costs pages). A
 * window being paged that is split saves half of what it holds (its cursor pages the other half
 * meanwhile): what it holds is its worth. A window held in a burst (its cursor pages tasks of one
 * instant, a page at a time, and a page of it has not moved: not just two tasks sharing a
 * millisecond) holds all that follows until its cursor has paged the burst, so a split past it saves
 * all of that, up to the burst's length, which pages have not shown yet: twice what follows. Where
 * its pages found only bursts, what follows is judged at `runDensity`, when that says more than
 * `minTasks`.
 */
function splitWorth(window: WindowLoad, minTasks: number, runDensity: number | undefined): number {
  const left = tasksLeft(window, minTasks);
  if (left <= minTasks) return 0;
  if (!(window.stalled && window.still > 0)) return left;
  if ((density(window) ?? 0) > 0) return 2 * left;
  const rest = (window.to - window.cursor) * (runDensity ?? 0);
  return rest > minTasks ? 2 * rest : left;
}

/**
 * Tasks a ms over the pages of the windows given (those not done), bursts left out; undefined
 * before any page.
 */
function meanDensity(windows: readonly WindowLoad[]): number | undefined {
  let tasks = 0;
  let span = 0;
  for (const window of windows) {
    if (window.pages === 0) continue;
    tasks += window.tasks - window.still;
    span += Math.max(1, window.cursor - window.from);
  }
  return span === 0 ? undefined : tasks / span;
}

/**
 * The window to split, and where: the one whose split is worth the most (`splitWorth`), if it has
 * more than `minSpanMs` of time left (tasks sharing one instant cannot be split); undefined when
 * none is worth a split. It splits at the midpoint of its time left; a window in a burst splits just
 * past the burst's instant, so that its cursor keeps only the burst (paged by tokens, a page at a
 * time) and another takes all that follows at once.
 */
export function splitPlan(
  windows: readonly WindowLoad[],
  minTasks: number,
  minSpanMs: number,
): { readonly id: number; readonly at: number; readonly to: number } | undefined {
  const runDensity = meanDensity(windows);
  let best: WindowLoad | undefined;
  let bestWorth = 0;
  for (const window of windows) {
    if (window.paired || window.to - window.cursor <= minSpanMs) continue;
    const worth = splitWorth(window, minTasks, runDensity);
    if (worth > bestWorth) {
      best = window;
      bestWorth = worth;
    }
  }
  if (!best) return undefined;
  const at = best.stalled ? best.cursor + 1 : best.cursor + Math.floor((best.to - best.cursor) / 2);
  return { id: best.id, at, to: best.to };
}

// Pages of a burst a window may have paged and still be paired: its cursor pages them again.
const PAIR_MAX_PAGES = 1;

/**
 * The window whose burst to page from its other end too, when no split is worth it: one held in a
 * burst whose pages have not moved its cursor, paged by one cursor alone; of those, the one that
 * has paged the least of its burst. Its cursor then pages its time left again from the burst's
 * start, in ticket order, so pairing pays only where it has paged little of the burst: a page or
 * two of `pageSize` tasks. A paired window is split no more: both ends page the same tasks.
 */
export function pairPlan(windows: readonly WindowLoad[], pageSize: number): number | undefined {
  let best: WindowLoad | undefined;
  for (const window of windows) {
    if (window.paired || !window.stalled || window.still === 0) continue;
    if (window.still > PAIR_MAX_PAGES * pageSize) continue;
    if (!best || window.still < best.still) best = window;
  }
  return best?.id;
}
