import type { Hooks } from '../../core/hooks.ts';
import type { Logger } from '../../core/logger.ts';
import { isoTime } from '../../internal/time.ts';
import type { CommitCounts, HeldLease, SyncRun, SyncWindow } from '../store.ts';
import type { SyncEvents, SyncSummary, SyncWindowEvent } from './events.ts';

/**
 * What one call of a sync did so far, told to the `progress` and `window` hooks as it goes: pages,
 * tasks, windows, the share of the creation-time range covered, and the tasks left, from which the
 * time left is estimated: each window's time left at the density its own pages found (bursts left
 * out), or the run's where a window has shown nothing yet. Time is no measure of work: a tenant's
 * tasks crowd into its recent weeks.
 */
export class SyncProgressMeter {
  readonly #hooks: Hooks<SyncEvents>;
  readonly #run: SyncRun;
  readonly #started = performance.now();
  #pages = 0;
  #tasks = 0;
  #new = 0;
  #changed = 0;
  #deleted = 0;
  #superseded = false;
  #windowsDone = 0;
  #windowsKnown = 0;
  // Creation time covered, and each window's time left, by window ID: the share covered.
  #coveredMs = 0;
  readonly #left = new Map<number, number>();
  // Each window's cursor and end as last told: time covered is what a cursor moved, never what a
  // split took. The time splits took (`#splitOff`, learnt at the split window's next page) is left
  // to do until the windows split off are claimed (`#splitClaimed`, their time when claimed; a
  // window claimed after a split here is taken to be the one split off). Either may come first.
  readonly #cursors = new Map<number, number>();
  readonly #ends = new Map<number, number>();
  #splitOff = 0;
  #splitClaimed = 0;
  #splitsUnclaimed = 0;
  // Tasks on pages that moved a cursor, and the time those pages covered: the density of each
  // window (by ID) and of the run, for the tasks left.
  readonly #seen = new Map<number, { tasks: number; ms: number }>();
  #seenTasks = 0;
  #seenMs = 0;
  // Whether work outside the windows is under way (an incremental run's refresh): its size is not known.
  #refreshing = false;
  // The share last told: a window taken over from a dead worker adds time left, which must not move it back.
  #covered = 0;
  readonly #toldWaiting = new Set<string>();

  constructor(hooks: Hooks<SyncEvents>, run: SyncRun) {
    this.#hooks = hooks;
    this.#run = run;
  }

  /** A window was claimed, split (the new half is not known yet), finished, or lost to another holder. */
  window(event: SyncWindowEvent['event'], window: SyncWindow | undefined): void {
    if (event === 'claimed' && window) {
      this.#windowsKnown += 1;
      const left = Math.max(0, window.to - window.cursor);
      this.#left.set(window.id, left);
      this.#cursors.set(window.id, window.cursor);
      this.#ends.set(window.id, window.to);
      if (this.#splitsUnclaimed > 0) {
        this.#splitsUnclaimed -= 1;
        this.#splitClaimed += left;
      }
    }
    if (event === 'split') this.#splitsUnclaimed += 1;
    if (event === 'lost' && window) {
      this.#windowsKnown -= 1;
      this.#forget(window.id);
    }
    if (event === 'done' && window) {
      this.#windowsDone += 1;
      this.#forget(window.id);
    }
    this.#hooks.emit('window', () => ({
      event,
      window: window?.id,
      from: window ? isoTime(window.from) : undefined,
      to: window ? isoTime(window.to) : undefined,
    }));
  }

  /** What the meter knew of a window done, or lost to another holder. */
  #forget(id: number): void {
    for (const known of [this.#left, this.#seen, this.#cursors, this.#ends]) known.delete(id);
  }

  /** A page of `window` was committed: its cursor is at `cursor`, its end at `to`. */
  page(counts: CommitCounts, tasks: number, window: SyncWindow, cursor: number, to: number): void {
    // A split since the last page moved `to` back: that time is another window's now, not covered.
    const end = this.#ends.get(window.id) ?? to;
    if (to < end) this.#splitOff += end - to;
    this.#ends.set(window.id, to);
    const moved = Math.max(0, Math.min(cursor, to) - (this.#cursors.get(window.id) ?? window.cursor));
    this.#cursors.set(window.id, Math.max(cursor, this.#cursors.get(window.id) ?? cursor));
    this.#coveredMs += moved;
    this.#left.set(window.id, Math.max(0, to - cursor));
    // A page in a burst (all of one instant) says nothing of the tasks a ms after it.
    if (moved > 0) {
      const seen = this.#seen.get(window.id) ?? { tasks: 0, ms: 0 };
      this.#seen.set(window.id, { tasks: seen.tasks + tasks, ms: seen.ms + moved });
      this.#seenTasks += tasks;
      this.#seenMs += moved;
    }
    this.#emit(counts, 1, tasks);
  }

  /** The end of a run: the tasks it marked as gone from the service, no page. */
  ended(counts: CommitCounts): void {
    this.#emit(counts, 0, 0);
  }

  /** Another worker's full run ended this one unfinished. */
  superseded(): void {
    this.#superseded = true;
  }

  /**
   * Pages fetched that change no task: a probe's, one whose window was taken over before its commit,
   * or one asked for ahead of a window that then ended.
   */
  fetched(pages: number): void {
    this.#emit({ new: 0, changed: 0, deleted: 0 }, pages, 0);
  }

  /** A batch of open tasks refreshed: work of a size the meter does not know, so no estimate from here on. */
  refreshed(counts: CommitCounts, pages: number, tasks: number): void {
    this.#refreshing = true;
    this.#emit(counts, pages, tasks);
  }

  /**
   * The tasks the windows still hold, estimated; undefined while no page has shown a density, or
   * while work of unknown size (a refresh) goes on.
   */
  #tasksLeft(): number | undefined {
    if (this.#refreshing) return undefined;
    if (this.#seenMs === 0) return this.#left.size === 0 ? 0 : undefined;
    const runDensity = this.#seenTasks / this.#seenMs;
    let left = this.#unclaimedMs() * runDensity;
    for (const [id, ms] of this.#left) {
      const seen = this.#seen.get(id);
      left += ms * (seen && seen.ms > 0 ? seen.tasks / seen.ms : runDensity);
    }
    return Math.round(left);
  }

  /** Time split off windows that no cursor has claimed yet. */
  #unclaimedMs(): number {
    return Math.max(0, this.#splitOff - this.#splitClaimed);
  }

  #emit(counts: CommitCounts, pages: number, tasks: number): void {
    this.#pages += pages;
    this.#tasks += tasks;
    this.#new += counts.new;
    this.#changed += counts.changed;
    this.#deleted += counts.deleted;
    if (pages === 0 && tasks === 0) return;
    this.#hooks.emit('progress', () => {
      const elapsed = (performance.now() - this.#started) / 1000;
      let leftMs = this.#unclaimedMs();
      for (const ms of this.#left.values()) leftMs += ms;
      const share = this.#coveredMs + leftMs > 0 ? this.#coveredMs / (this.#coveredMs + leftMs) : 1;
      const covered = Math.max(this.#covered, share);
      this.#covered = covered;
      const tasksPerSecond = elapsed > 0 ? this.#tasks / elapsed : 0;
      const tasksLeft = this.#tasksLeft();
      return {
        pages: this.#pages,
        tasks: this.#tasks,
        windowsDone: this.#windowsDone,
        windowsLeft: this.#windowsKnown - this.#windowsDone,
        covered,
        tasksLeft,
        tasksPerSecond,
        etaMs:
          tasksLeft === undefined || tasksPerSecond === 0
            ? undefined
            : Math.round((tasksLeft / tasksPerSecond) * 1000),
      };
    });
  }

  /**
   * Cursors wait for work these leases hold: each worker holding them told once, to the `waiting`
   * hook and the log, with the lease of its cursors that runs out last.
   */
  waiting(held: readonly HeldLease[], now: number, logger: Logger): void {
    const byWorker = new Map<string, HeldLease>();
    for (const lease of held) {
      const holder = lease.holder.replace(/\/\d+$/, '');
      const known = byWorker.get(holder);
      if (!known || lease.until > known.until) byWorker.set(holder, { ...lease, holder });
    }
    for (const { holder, until, leftMs } of byWorker.values()) {
      if (this.#toldWaiting.has(holder)) continue;
      this.#toldWaiting.add(holder);
      logger.warn(
        `task sync: waiting for work held by ${holder}, whose lease runs out at ${isoTime(until)} unless renewed`,
      );
      const runsOutInMs = Math.max(0, leftMs ?? until - now);
      this.#hooks.emit('waiting', () => ({ holder, until: isoTime(until), runsOutInMs }));
    }
  }

  /** The summary of a run stopped before it was begun or resumed: nothing done, its kind the one it would have been. */
  static notBegun(full: boolean, durationMs: number): SyncSummary {
    return {
      kind: full ? 'full' : 'incremental',
      resumed: false,
      complete: false,
      pages: 0,
      tasksNew: 0,
      tasksChanged: 0,
      tasksDeleted: 0,
      windows: 0,
      durationMs: Math.round(durationMs),
    };
  }

  /** The run's summary, as `run()` returns it. */
  summary(complete: boolean, durationMs: number): SyncSummary {
    return {
      kind: this.#run.kind,
      resumed: this.#run.resumed,
      complete: complete && !this.#superseded,
      ...(this.#superseded ? { superseded: true } : {}),
      pages: this.#pages,
      tasksNew: this.#new,
      tasksChanged: this.#changed,
      tasksDeleted: this.#deleted,
      windows: this.#windowsKnown,
      durationMs: Math.round(durationMs),
    };
  }
}
