/**
 * What a task sync hands its store to write, and what a write did: the task and expanded rows of
 * a page, a page's commit with its checkpoint, a batch of the refresh, and their counts.
 *
 * @module
 */

/**
 * The order a window's query pages in (see `SyncWindow.order`).
 *
 * @group Task sync
 */
export type WindowOrder = 'created' | 'ticket' | 'reverseTicket';

/**
 * The edge a burst's end commits once the burst is covered (it paged its query to its last page, or
 * met the other end): no ticket ID, and the sign for the other end that it is done too.
 */
export const COVERED_EDGE = '-';

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
 * A page of a window to commit: its tasks and expanded objects, and where the window's query stands
 * after it.
 *
 * @group Task sync
 */
export interface PageCommit {
  readonly tasks: readonly TaskRow[];
  readonly expanded: readonly ExpandedRow[];
  /**
   * The window's new cursor (Unix ms): every task of the window created before it is committed. The
   * creation time of the page's last task inside the query; for a page out of creation order, the
   * cursor as it stood.
   */
  readonly cursor: number;
  /** Whether the page moved the cursor (false in a burst of tasks created at one instant). */
  readonly moved: boolean;
  /**
   * The next page goes on at the page's last instant, which holds more than one of its tasks: the
   * window is in a burst (a split then cuts just past that instant). Default: `!moved`.
   */
  readonly inBurst?: boolean;
  readonly queryFrom: number;
  readonly queryTo: number;
  /** The query's next page, or undefined when it has none. */
  readonly token: string | undefined;
  /** The query has no page left: the window is done. */
  readonly exhausted: boolean;
  /**
   * The window ends because the service refused its `includeActedAfter`: the run no longer
   * counts as one that saw the tasks acted on (its `acted_after_ms` is cleared).
   */
  readonly actedCut?: boolean;
  /** When the page was fetched (Unix ms). */
  readonly syncedAt: number;
  /** The order of the query the page came from; default `created`. */
  readonly order?: WindowOrder;
  /**
   * For a burst's end (`ticket` or `reverseTicket`): the furthest ticket ID its pages reached, as
   * 20 digits: every task before it in the end's order is committed, so once one end has read the
   * other's edge, their pages overlap and the burst is covered.
   */
  readonly edge?: string;
  /** This end read the other end's edge (or found it covered): the burst is covered, both are done. */
  readonly met?: boolean;
  /**
   * The service does not page this end by ticket ID as the edge needs (an ID out of order, or not
   * an integer): the end pages on alone to the query's last page, and its other end stops.
   */
  readonly unpair?: boolean;
  /**
   * This end (the descending one) is done short of meeting the other: the other end is about a page
   * off, and pages the rest until it passes this end's edge.
   */
  readonly handOver?: boolean;
  /**
   * The service refused this end's order (`TICKET_ID` or `REVERSE_TICKET_ID`): the window's burst
   * is paged from one end again, by creation time from the window's cursor, and the other end stops.
   */
  readonly orderRefused?: boolean;
  /**
   * The service answers this run out of creation order: the run says so from this commit on (its
   * `unordered`), so that a process that resumes or joins it does not take a page for ordered.
   */
  readonly unordered?: boolean;
}

/**
 * What committing a page did: the window's end as it is now (a split may have moved it), whether
 * the window is done, and `lost` (nothing written) when another holder took it.
 *
 * @group Task sync
 */
export interface PageCommitResult {
  readonly to: number;
  readonly done: boolean;
  readonly lost: boolean;
  readonly counts: CommitCounts;
  /**
   * The window's order now, when it differs from the page's: an idle cursor paired the window
   * meanwhile (or its pair went back to one end), and its query starts again in that order; nothing
   * of the page was written.
   */
  readonly order?: WindowOrder;
  /** For a burst's end: the edge its other end's committed pages reached, when they reached one. */
  readonly otherEdge?: string;
  /**
   * The run is answered out of creation order, as a commit said: so a worker learns what another
   * found (the store may leave it unset for the commit that said it first).
   */
  readonly unordered?: boolean;
}

/**
 * A batch of the refresh of open tasks to commit: the tasks the service returned, and the IDs it
 * did not (to mark deleted, `vanished`).
 *
 * @group Task sync
 */
export interface RefreshBatch {
  readonly tasks: readonly TaskRow[];
  readonly vanished: readonly string[];
  /** The expanded objects the answers inlined (with `expand`): written as a page's are. */
  readonly expanded?: readonly ExpandedRow[] | undefined;
  /** When the batch was fetched (Unix ms). */
  readonly syncedAt: number;
}
