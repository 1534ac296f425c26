/**
 * What a task sync keeps, and the one interface its stores (SQLite, PostgreSQL) implement. Every
 * method that writes commits before it resolves: a page's tasks and its window's progress in one
 * transaction, so that the copy and its checkpoint never disagree.
 *
 * @module
 */

/**
 * Which copy a store holds: a sync for another tenant or another filter is refused, so that two
 * copies never mix in one database.
 *
 * @group Task sync
 */
export interface CopyIdentity {
  /** The tenant's base URL. */
  readonly baseUrl: string;
  /** The filter sent to the service, as canonical JSON (`{}` for every task). */
  readonly filter: string;
}

/**
 * A stretch of creation time that one cursor pages, in Unix ms. The window covers `from..to`
 * (both ends included); `cursor` is the creation time of the last task committed. A query runs from
 * `queryFrom` to `queryTo` with `token` as its next page: the request a token belongs to, kept so
 * that a resumed window can continue it, or restart from `cursor` when the token is refused.
 *
 * @group Task sync
 */
export interface SyncWindow {
  readonly id: number;
  readonly from: number;
  readonly to: number;
  readonly cursor: number;
  readonly queryFrom: number;
  readonly queryTo: number;
  readonly token: string | undefined;
}

/**
 * One task as the copy keeps it: the columns users query, and the task's JSON as received.
 *
 * @group Task sync
 */
export interface TaskRow {
  readonly id: string;
  readonly state: string | undefined;
  /** ISO 8601 UTC with milliseconds, so that text order is time order. */
  readonly createdAt: string | undefined;
  readonly updatedAt: string | undefined;
  readonly deletedAt: string | undefined;
  /** The task's JSON as the service sent it. */
  readonly json: string;
}

/**
 * An expanded object a search returned, kept by its `@type` and ID.
 *
 * @group Task sync
 */
export interface ExpandedRow {
  readonly type: string;
  readonly id: string;
  readonly json: string;
}

/**
 * A run of the sync: `full` (every task, in windows of creation time) or `incremental` (tasks
 * created since the last run, then every task the copy holds as open).
 *
 * @group Task sync
 */
export interface SyncRun {
  readonly id: number;
  readonly kind: 'full' | 'incremental';
  /** When it started, in Unix ms: the end of its creation-time range. */
  readonly startedAt: number;
  /** Resuming: the last open task ID the refresh of open tasks committed. */
  readonly refreshedThrough: string | undefined;
  /** True when this call found the run unfinished and resumes it. */
  readonly resumed: boolean;
}

/**
 * What a store knows of its copy when opened.
 *
 * @group Task sync
 */
export interface CopyState {
  /** When the last completed run started (Unix ms); undefined before the first completes. */
  readonly lastRunStartedAt: number | undefined;
}

/**
 * How many tasks a commit added, changed or marked deleted.
 *
 * @group Task sync
 */
export interface CommitCounts {
  readonly new: number;
  readonly changed: number;
  readonly deleted: number;
}

/**
 * Where a task sync keeps its copy and its checkpoints. `SqliteSyncStore` (`@idgov/sdk/sync/sqlite`)
 * implements it.
 *
 * @group Task sync
 */
export interface SyncStore {
  /**
   * Opens the copy for `identity`: creates its tables, or checks that it was made for the same
   * tenant and filter (a `ConfigurationError` naming both otherwise), and takes the copy for this
   * process (a `ConfigurationError` if another live process syncs it).
   */
  open(identity: CopyIdentity): Promise<CopyState>;
  /** The unfinished run, to resume; undefined when the last one finished. */
  unfinishedRun(): Promise<SyncRun | undefined>;
  /** Starts a run with its first windows. */
  beginRun(
    kind: SyncRun['kind'],
    startedAt: number,
    windows: ReadonlyArray<{ from: number; to: number }>,
  ): Promise<SyncRun>;
  /** Takes a window of `run` no cursor pages now; undefined when none is left. */
  claimWindow(run: SyncRun): Promise<SyncWindow | undefined>;
  /**
   * Splits the window with the most work left (`splitPlan`) at the midpoint of its time left; the
   * new half is free to claim. False when none is worth splitting.
   */
  splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number },
  ): Promise<boolean>;
  /**
   * Commits a page of a window in one transaction: its tasks (upserted by ID, a newer
   * `updatedAt` never overwritten by an older), its expanded objects, and the window's progress.
   * Returns the window's end as it is now (a split may have moved it) and whether the window is done.
   */
  commitPage(
    run: SyncRun,
    window: SyncWindow,
    page: {
      readonly tasks: readonly TaskRow[];
      readonly expanded: readonly ExpandedRow[];
      readonly cursor: number;
      /** Whether the page moved the cursor (false in a burst of tasks created at one instant). */
      readonly moved: boolean;
      readonly queryFrom: number;
      readonly queryTo: number;
      readonly token: string | undefined;
      readonly exhausted: boolean;
      readonly syncedAt: number;
    },
  ): Promise<{ readonly to: number; readonly done: boolean; readonly counts: CommitCounts }>;
  /**
   * The IDs of tasks the copy holds as open that `run` has not fetched yet, after `afterId`, in ID
   * order: the refresh's work.
   */
  openTaskIds(run: SyncRun, afterId: string | undefined, limit: number): Promise<string[]>;
  /**
   * Commits a batch of the refresh of open tasks: the tasks the service returned, the IDs it did
   * not (marked deleted, `vanished`), and the refresh's progress, in one transaction.
   */
  commitRefresh(
    run: SyncRun,
    batch: {
      readonly tasks: readonly TaskRow[];
      readonly vanished: readonly string[];
      readonly through: string;
      readonly syncedAt: number;
    },
  ): Promise<CommitCounts>;
  /** Ends `run`; after a full run, tasks it did not see are marked deleted and vanished. Returns how many. */
  finishRun(run: SyncRun, finishedAt: number): Promise<number>;
  /** Lets the copy go for another sync (the end of a run). */
  release(): Promise<void>;
  /** Lets the copy go and closes the database. */
  close(): Promise<void>;
}
