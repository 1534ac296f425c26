/**
 * What a task sync keeps, and the one interface its stores (SQLite, PostgreSQL) implement. Every
 * method that writes commits before it resolves: a page's tasks and its window's progress in one
 * transaction, so that the copy and its checkpoint never disagree.
 *
 * @module
 */

import type { CommitCounts, PageCommit, PageCommitResult, RefreshBatch, WindowOrder } from './store-rows.ts';

export type {
  CommitCounts,
  ExpandedRow,
  PageCommit,
  PageCommitResult,
  RefreshBatch,
  TaskRow,
  WindowOrder,
} from './store-rows.ts';
export { COVERED_EDGE } from './store-rows.ts';

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
 * (both ends included); every task of it created before `cursor` is committed (the creation time of
 * the last task committed, while the service pages in creation order). A query runs from
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
  /**
   * Set on a window of an incremental run that pages only the tasks acted on after this time
   * (`includeActedAfter`), among those created before the run's new tasks; split halves keep it.
   */
  readonly actedAfter?: number | undefined;
  /**
   * The order its query pages in: `created` (creation time, the default) or, for a burst of tasks
   * created at one instant that two cursors page from both ends, `ticket` (ascending ticket ID) and
   * `reverseTicket` (descending), until the two ends meet. A store that never pairs windows
   * ({@link SyncStore.splitLargest}) leaves it unset.
   */
  readonly order?: WindowOrder | undefined;
  /**
   * For a burst's end: the ticket ID its committed pages reached (see {@link PageCommit.edge});
   * undefined before its first page.
   */
  readonly edge?: string | undefined;
  /** Its run was found answered out of creation order (see {@link SyncRun.unordered}) when it was claimed. */
  readonly unordered?: boolean | undefined;
}

/**
 * A window to begin a run with: `from..to` of creation time, and `actedAfter` for the tasks acted
 * on since (see {@link SyncWindow.actedAfter}).
 *
 * @group Task sync
 */
export interface SyncWindowPlan {
  readonly from: number;
  readonly to: number;
  readonly actedAfter?: number | undefined;
}

/**
 * A run of the sync: `full` (every task, in windows of creation time) or `incremental` (tasks
 * created since the last run, and older ones acted on since, then every task the copy holds as open
 * that those did not fetch).
 *
 * @group Task sync
 */
export interface SyncRun {
  readonly id: number;
  readonly kind: 'full' | 'incremental';
  /** When it started, in Unix ms: the end of its creation-time range. */
  readonly startedAt: number;
  /** True when this call found the run begun (by an earlier process, or another worker) and joins it. */
  readonly resumed: boolean;
  /**
   * The service answered this run out of creation order (a commit said so with `unordered`): a
   * process that resumes or joins it, or claims one of its windows, moves no cursor by the pages of
   * a token saved with a window (they say nothing of the tasks before them): it pages that query
   * to its end, or, once it starts the query again at the cursor, checks order as for any query.
   */
  readonly unordered?: boolean;
}

/**
 * A lease a cursor takes on its work (a window, a batch of open tasks): while it holds, no other
 * cursor or worker takes that work; when the holder dies, the work passes on once it runs out.
 *
 * @group Task sync
 */
export interface SyncLease {
  /** Who holds it: one token a cursor. */
  readonly holder: string;
  /** How long it holds after each claim or commit, in ms. */
  readonly ms: number;
}

/**
 * What a store knows of its copy when opened.
 *
 * @group Task sync
 */
export interface CopyState {
  /**
   * When the run completed last started (Unix ms); undefined before the first completes. The last
   * to complete, not the greatest start: a run that went by a service clock running ahead must not
   * hold every later run's reach there once the clock is put right.
   */
  readonly lastRunStartedAt: number | undefined;
  /** The creation time of the copy's first task (Unix ms); undefined when it holds none. */
  readonly earliestCreatedAt: number | undefined;
  /**
   * When the run completed last of those that saw the tasks acted on started (Unix ms): a full
   * run, or an incremental one that paged them. An incremental run's pass of tasks acted on begins there, so
   * that a run without one (of an earlier release, or against a service that does not apply the
   * bound) leaves no gap. A store keeps it by `beginRun`'s windows and `commitPage`'s `actedCut`.
   */
  readonly actedSeenSince: number | undefined;
}

/**
 * A live lease on a run's work, held by another cursor or worker.
 *
 * @group Task sync
 */
export interface HeldLease {
  /** Who holds it: the worker's name and its cursor. */
  readonly holder: string;
  /** When it runs out, in Unix ms by the store's clock, unless its holder renews it. */
  readonly until: number;
  /**
   * How long until then, by the store's clock when it was read. A store whose clock is not this
   * machine's (a database server's) gives it; without it, `until` less the sync's `now()`.
   */
  readonly leftMs?: number | undefined;
}

/**
 * What {@link SyncStore.finishRun} found.
 *
 * @group Task sync
 */
export interface RunEnd {
  /** The run is over, ended by this call or another's. */
  readonly finished: boolean;
  /** Tasks this call marked vanished that were not deleted before: newly deleted. */
  readonly vanished: number;
  /** While it is not over: the live leases on its work, one a holder (the latest ending). */
  readonly held?: readonly HeldLease[] | undefined;
  /**
   * The run is over because another ended it unfinished (a sync with `full: true` on another
   * worker): it did not complete, and what it committed stays. Optional for stores of your own.
   */
  readonly superseded?: boolean | undefined;
}

/**
 * Where a task sync keeps its copy and its checkpoints. `SqliteSyncStore` (`@idgov/sdk/sync/sqlite`,
 * one process) and `PostgresSyncStore` (`@idgov/sdk/sync/postgres`, many workers) implement it.
 *
 * @group Task sync
 */
export interface SyncStore {
  /**
   * Opens the copy for `identity`: checks that it was made for the same tenant and filter (a
   * `ConfigurationError` naming both otherwise). A store for one process (SQLite) also takes the
   * copy for it (a `ConfigurationError` if another live process syncs it); one for many workers
   * (PostgreSQL) shares it.
   */
  open(identity: CopyIdentity): Promise<CopyState>;
  /** The unfinished run, to resume or join; undefined when the last one finished. */
  unfinishedRun(): Promise<SyncRun | undefined>;
  /**
   * Begins a run with its first windows, unless one is unfinished (another worker began it first):
   * then returns that one, to join. One unfinished run at a time. A window with `actedAfter` makes
   * the run one that sees the tasks acted on since then.
   */
  beginRun(kind: SyncRun['kind'], startedAt: number, windows: readonly SyncWindowPlan[]): Promise<SyncRun>;
  /**
   * Takes, under `lease`, the window of `run` with the most time left that no live lease holds
   * (a dead holder's window resumes from its last checkpoint), or one `lease` holds already (its
   * commit failed); undefined when none is free.
   */
  claimWindow(run: SyncRun, lease: SyncLease): Promise<SyncWindow | undefined>;
  /**
   * Splits the window `splitPlan` picks (the one whose split is worth the most) where it says (the
   * midpoint of its time left, or just past a burst it is in); the new part is free to claim. When
   * none is worth splitting and `pair` is set, a store may pair the burst `pairPlan` picks instead: the window turns
   * to ascending ticket order from the burst's start, and a new window, free to claim, pages it
   * from the other end. False when it did neither.
   */
  splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number; readonly pair?: boolean },
  ): Promise<boolean>;
  /**
   * Commits a page of a window in one transaction, if `lease` still holds it: its tasks (upserted
   * by ID; a later fetch replaces an earlier one, and a fetch of an earlier run than the one that
   * last wrote a task changes nothing), its expanded objects, and the
   * window's progress, renewing the lease. Only the tasks the window owns are written: those
   * created in its range as it stands at the commit, and past an end only where no window of the
   * run goes on from there (queries reach a millisecond past their window, and a split may have
   * moved its end since the page was fetched); a burst's two ends write no task the run wrote
   * already. Returns the window's end as it is now (a split may have
   * moved it), whether the window is done, and `lost` (nothing written) when another holder took it.
   */
  commitPage(run: SyncRun, window: SyncWindow, page: PageCommit, lease: SyncLease): Promise<PageCommitResult>;
  /**
   * Takes, under `lease`, up to `limit` tasks that `run` has not fetched yet and no live lease
   * holds, in ID order: a batch of the refresh, which asks for them by ID. For an incremental run,
   * those the copy holds as open; for a full run, every task not deleted that its range covered
   * (created by its `startedAt`), which it would otherwise mark vanished: one its pages missed (a
   * purge that shifted a service's offset tokens) is still there. Their IDs; none when all are
   * taken, and none while a window of the run is not done (the tasks its pages fetch need no refresh).
   */
  claimOpenTasks(run: SyncRun, lease: SyncLease, limit: number): Promise<string[]>;
  /**
   * Commits a batch of the refresh in one transaction: the tasks the service returned, and the IDs
   * it did not (marked deleted, `vanished`), and the expanded objects its answers inlined (while
   * the lease holds any of the tasks); their leases end.
   */
  commitRefresh(run: SyncRun, batch: RefreshBatch, lease: SyncLease): Promise<CommitCounts>;
  /**
   * Ends `run` if no work of it is left (every window done, every task `claimOpenTasks` would give
   * refreshed), once: of the workers that try, one ends it; after a full run, tasks it did not see
   * are marked deleted and vanished. `finished` says whether the run is over (by this call or
   * another's); `vanished`, how many tasks not yet deleted this call marked; `held`, while it is not over, the live
   * leases on its work (what the caller waits for).
   */
  finishRun(run: SyncRun, finishedAt: number): Promise<RunEnd>;
  /**
   * Ends `run` where it stands, unfinished (a full run was asked for): what it committed stays,
   * its windows and its record go, so that it counts as no run (not as the last one an
   * incremental run reaches back to), and its workers find no more work in it. A run already gone
   * or finished is left as it is. Afterwards `finishRun` says such a run is over.
   */
  endRun(run: SyncRun): Promise<void>;
  /**
   * Renews, by the store's clock, every lease `holders` hold (windows and batches of open tasks)
   * for `ms` more: the heartbeat of a worker's work in hand. Resolves with the holders that still
   * hold something; one missing lost its work to another holder (its lease had run out).
   */
  renewLeases(holders: readonly string[], ms: number): Promise<string[]>;
  /** Ends every lease `holders` hold (a worker stopping): their work is free to take at once. */
  endLeases(holders: readonly string[]): Promise<void>;
  /**
   * Lets the copy go for another sync (the end of a run). May answer without reaching the database
   * (PostgreSQL's does: its leases end with `endLeases`), so the sync does not take its answer for a
   * sign that a store that failed answers again.
   */
  release(): Promise<void>;
  /** Lets the copy go and closes the database. */
  close(): Promise<void>;
}
