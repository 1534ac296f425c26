import type { Hooks } from '../../core/hooks.ts';
import type { Logger } from '../../core/logger.ts';
import { isoTime } from '../../internal/time.ts';
import type { CommitCounts, HeldLease, SyncRun, SyncWindow } from '../store.ts';
import type { SyncEvents, SyncSummary, SyncWindowEvent } from './events.ts';

/**
 * What one call of a sync did so far, told to the `progress` and `window` hooks as it goes: pages,
 * tasks, windows, and the share of the creation-time range covered, from which the time left is
 * estimated.
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
  #windowsDone = 0;
  #windowsKnown = 0;
  // Creation time covered, and each window's time left, by window ID: the estimate's inputs.
  #coveredMs = 0;
  readonly #left = new Map<number, number>();
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
      this.#left.set(window.id, Math.max(0, window.to - window.cursor));
    }
    if (event === 'lost' && window) {
      this.#windowsKnown -= 1;
      this.#left.delete(window.id);
    }
    if (event === 'done' && window) {
      this.#windowsDone += 1;
      this.#left.delete(window.id);
    }
    this.#hooks.emit('window', () => ({
      event,
      window: window?.id,
      from: window ? isoTime(window.from) : undefined,
      to: window ? isoTime(window.to) : undefined,
    }));
  }

  /** A page of `window` was committed: its cursor is at `cursor`, its end at `to`. */
  page(counts: CommitCounts, tasks: number, window: SyncWindow, cursor: number, to: number): void {
    const before = this.#left.get(window.id) ?? 0;
    const left = Math.max(0, to - cursor);
    this.#coveredMs += Math.max(0, before - left);
    this.#left.set(window.id, left);
    this.counted(counts, 1, tasks);
  }

  /** Work that moves no window (the refresh of open tasks, the end of a run). */
  counted(counts: CommitCounts, pages: number, tasks = 0): void {
    this.#pages += pages;
    this.#tasks += tasks;
    this.#new += counts.new;
    this.#changed += counts.changed;
    this.#deleted += counts.deleted;
    if (pages === 0 && tasks === 0) return;
    this.#hooks.emit('progress', () => {
      const elapsed = (performance.now() - this.#started) / 1000;
      let leftMs = 0;
      for (const ms of this.#left.values()) leftMs += ms;
      const share = this.#coveredMs + leftMs > 0 ? this.#coveredMs / (this.#coveredMs + leftMs) : 1;
      const covered = Math.max(this.#covered, share);
      this.#covered = covered;
      return {
        pages: this.#pages,
        tasks: this.#tasks,
        windowsDone: this.#windowsDone,
        windowsLeft: this.#windowsKnown - this.#windowsDone,
        covered,
        tasksPerSecond: elapsed > 0 ? this.#tasks / elapsed : 0,
        etaMs: covered > 0 && covered < 1 ? ((elapsed * 1000) / covered) * (1 - covered) : undefined,
      };
    });
  }

  /** Cursors wait for work these leases hold: each holder told once, to the `waiting` hook and the log. */
  waiting(held: readonly HeldLease[], logger: Logger): void {
    for (const { holder, until } of held) {
      if (this.#toldWaiting.has(holder)) continue;
      this.#toldWaiting.add(holder);
      logger.warn(
        `task sync: waiting for work held by ${holder}, whose lease runs out at ${isoTime(until)} unless renewed`,
      );
      this.#hooks.emit('waiting', () => ({ holder, until: isoTime(until) }));
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
      durationMs,
    };
  }

  /** The run's summary, as `run()` returns it. */
  summary(complete: boolean, durationMs: number): SyncSummary {
    return {
      kind: this.#run.kind,
      resumed: this.#run.resumed,
      complete,
      pages: this.#pages,
      tasksNew: this.#new,
      tasksChanged: this.#changed,
      tasksDeleted: this.#deleted,
      windows: this.#windowsKnown,
      durationMs,
    };
  }
}
