/**
 * Which window to split when a cursor is idle: the one with the most work left, judged by what its
 * pages found so far, so that the work moves to where the tasks are (real tenants create tasks in
 * bursts, and most of them recently). Shared by every store; the engine only hands over the limits.
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
  /** The last page did not move the cursor: the window is in a burst, and what follows is unknown. */
  readonly stalled: boolean;
  /** A half split off this window is not paged yet: what it holds, this one may not. */
  readonly childUnpaged: boolean;
}

/** Tasks a ms that `window` held so far, bursts left out; undefined before its first page. */
export function density(window: WindowLoad): number | undefined {
  if (window.pages === 0) return undefined;
  return (window.tasks - window.still) / Math.max(1, window.cursor - window.from);
}

/**
 * The tasks `window` is estimated to hold after its cursor: its density so far (bursts left out)
 * times the time left. None while nothing is known: before its first page (a run starts with one
 * window a cursor, so no cursor waits for that), in a burst, or while the last half split off it has
 * not shown what it holds (tasks cluster, and a half of the time may hold none of them).
 */
export function tasksLeft(window: WindowLoad): number {
  const known = density(window);
  if (known === undefined || window.stalled || window.childUnpaged) return 0;
  return (window.to - window.cursor) * known;
}

/**
 * The window to split, and where: the one with the most tasks left, if it has more than
 * `minTasks` (splitting a window its cursor finishes in a page or two only costs pages) and more
 * than `minSpanMs` of time left (tasks sharing one instant cannot be split); undefined when none.
 * It splits at the midpoint of its time left.
 */
export function splitPlan(
  windows: readonly WindowLoad[],
  minTasks: number,
  minSpanMs: number,
): { readonly id: number; readonly at: number; readonly to: number } | undefined {
  let best: WindowLoad | undefined;
  let bestLeft = minTasks;
  for (const window of windows) {
    if (window.to - window.cursor <= minSpanMs) continue;
    const left = tasksLeft(window);
    if (left > bestLeft) {
      best = window;
      bestLeft = left;
    }
  }
  if (!best) return undefined;
  return { id: best.id, at: best.cursor + Math.floor((best.to - best.cursor) / 2), to: best.to };
}
