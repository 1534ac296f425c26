/**
 * What a task sync tells its hooks and returns.
 *
 * @module
 */

/**
 * What a run did, as {@link TaskSync.run} returns it.
 *
 * @group Task sync
 */
export interface SyncSummary {
  /**
   * `full` (every task) or `incremental` (tasks created since the last run, older ones acted on
   * since, and open ones refreshed).
   */
  readonly kind: 'full' | 'incremental';
  /** True when the run resumed one a previous process left unfinished. */
  readonly resumed: boolean;
  /**
   * True when the run finished; false when it was stopped (`signal`), to be resumed by the next run,
   * or `superseded`.
   */
  readonly complete: boolean;
  /**
   * True when another worker's run with `full: true` ended this one unfinished: what it committed
   * stays, and that full run, not this one, makes the copy current (the next run joins it).
   */
  readonly superseded?: boolean | undefined;
  /** Pages fetched by this call (the probe of `includeActedAfter` included). */
  readonly pages: number;
  /** Tasks the copy did not hold before. */
  readonly tasksNew: number;
  /** Tasks the copy held whose JSON changed, or that came back after they vanished. */
  readonly tasksChanged: number;
  /** Tasks newly marked deleted (by the service, or vanished from it). */
  readonly tasksDeleted: number;
  /** Windows of creation time paged (after splits). */
  readonly windows: number;
  /** How long the call took, in ms. */
  readonly durationMs: number;
}

/**
 * Progress of a run, told to the `progress` hook after every committed page.
 *
 * @group Task sync
 */
export interface SyncProgress {
  /** Pages fetched by this call so far (as {@link SyncSummary.pages}). */
  readonly pages: number;
  /**
   * Tasks written by this call (new, changed or the same): a task fetched twice (at a window's
   * edge, or on a page fetched again after a crash) counts twice, so this may pass the tenant's count.
   */
  readonly tasks: number;
  /** Windows finished, and known to be left (free or being paged). */
  readonly windowsDone: number;
  readonly windowsLeft: number;
  /**
   * Share of the run's creation-time range covered so far, from 0 to 1 (its refresh of open tasks
   * aside); it never goes back, even when a dead worker's window is taken over from its last page.
   */
  readonly covered: number;
  /**
   * Tasks the run's windows still hold, estimated: each window's time left at the density its own
   * pages found (bursts left out), or the run's where a window has shown nothing yet. Undefined
   * until a page has shown a density, and while an incremental run refreshes the open tasks it
   * holds (work whose size it does not know).
   */
  readonly tasksLeft: number | undefined;
  /** Tasks a second, over this call. */
  readonly tasksPerSecond: number;
  /** Estimated time left, in ms: `tasksLeft` at `tasksPerSecond`; undefined when either is unknown. */
  readonly etaMs: number | undefined;
}

/**
 * A window's life, told to the `window` hook: claimed by a cursor, split in two (or its burst given
 * a second window, that pages it from the other end), done, or lost (another worker took it over
 * once this one's lease ran out, and repeats its last page).
 *
 * @group Task sync
 */
export interface SyncWindowEvent {
  readonly event: 'claimed' | 'split' | 'done' | 'lost';
  /** The window's ID in the store (for `split`, the window that was halved is not named). */
  readonly window: number | undefined;
  /** Its creation-time range, ISO 8601. */
  readonly from: string | undefined;
  readonly to: string | undefined;
}

/**
 * A cursor waits for work another worker (or another cursor) holds: told once for each holder a
 * worker waits on, with when its lease runs out unless its holder renews it.
 *
 * @group Task sync
 */
export interface SyncWaitingEvent {
  /** Who holds the work: the worker's name and its random suffix (`host-3 pid 42 #abcd`), its cursors told as one. */
  readonly holder: string;
  /** When the lease runs out unless renewed, ISO 8601 (by the store's clock). */
  readonly until: string;
  /**
   * How long until then, by the store's clock when the cursor began to wait: what to count down
   * from, since this machine's clock may differ from the store's.
   */
  readonly runsOutInMs: number;
}

/**
 * The events a {@link TaskSync} tells its hooks.
 *
 * @group Task sync
 */
export interface SyncEvents {
  /** A page was committed, or the refresh of open tasks moved on. */
  readonly progress: SyncProgress;
  /** A window was claimed, split or finished. */
  readonly window: SyncWindowEvent;
  /** A cursor waits for work another holds (once a holder). */
  readonly waiting: SyncWaitingEvent;
  /** A run ended (complete or stopped). */
  readonly runEnd: SyncSummary;
}
