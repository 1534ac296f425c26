/**
 * The options of a `SqliteSyncStore`, and what its copy's work (copy.ts) is opened with, wherever
 * it runs.
 *
 * @module
 */
import type { ChangeFeedStart } from '../changes.ts';

/**
 * Options of {@link SqliteSyncStore}.
 *
 * @group Task sync
 */
export interface SqliteSyncStoreOptions {
  /** The database file; created with its tables if missing. */
  readonly path: string;
  /** How long to wait for another connection's write (a reader of the copy), in ms. Default 5,000. */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * Opens an existing copy only to read it (`rows()`, `tasks()`), as `idgov export` does: nothing is
   * created or written, a missing file or one that holds no copy is refused with what to do, and
   * syncing through this store is refused. Default false.
   */
  readonly readOnly?: boolean | undefined;
  /**
   * Whether the change feed records the first full copy (`all`, the default) or begins once a
   * first run completed (`after-first-copy`), for a copy with no task yet: after, the copy keeps
   * the setting its first commit had; see {@link ChangeFeedStart}.
   */
  readonly changeFeed?: ChangeFeedStart | undefined;
  /**
   * Once aborted (the sync you run with the store stopping), a call waiting for another
   * connection's lock on the file gives up at once, rather than after `busyTimeoutMs`: a process
   * told to stop stops, however long another holds the copy. Pass the signal you stop the sync with.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Whether the database works in a worker thread of its own (`true`, the default), so that its
   * writes, each waiting for the disk, never hold up the pages being fetched; `false` runs it on the
   * caller's thread, which saves the CPU of the thread's start and of the copy of every page's rows
   * to it. Worth it for a sync of one cursor, whose next page is on
   * its way while a page commits (`idgov sync --concurrency 1` runs so); with more cursors, each
   * commit would hold up the others' pages. Without a thread, a stop cannot cut short a wait for
   * another connection's lock on the file: that waits up to `busyTimeoutMs`.
   */
  readonly thread?: boolean | undefined;
}

/**
 * What the copy's work is opened with, in the store's thread or on the caller's: the options it can
 * use, the store's ID and its stop flag.
 *
 * @internal
 */
export type SqliteCopyOptions = Omit<SqliteSyncStoreOptions, 'signal' | 'thread'> & {
  readonly holder: string;
  readonly stop: Int32Array;
};
