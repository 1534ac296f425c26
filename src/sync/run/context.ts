/**
 * What every piece of a run's work is handed: the run, its store and meter, and what the run has
 * learnt of its service so far.
 *
 * @module
 */
import type { SyncRun, SyncStore } from '../store.ts';
import type { Doorbell } from './doorbell.ts';
import type { Fallback } from './fallback.ts';
import type { ResolvedSyncOptions } from './options.ts';
import type { PageSize } from './page-size.ts';
import type { SyncProgressMeter } from './progress.ts';

/** What a cursor works with during one run. */
export interface RunContext {
  readonly options: ResolvedSyncOptions;
  /** The store, its transient failures waited out. */
  readonly store: SyncStore;
  readonly run: SyncRun;
  readonly meter: SyncProgressMeter;
  readonly signal: AbortSignal;
  /** Rung when a cursor finished a piece of work: idle cursors look again. */
  readonly bell: Doorbell;
  /** Tasks a request asks for, halved for the rest of the run when an answer is too large. */
  readonly pageSize: PageSize;
  /** Told of each task whose ID the copy cannot hold: it is left out, never marked vanished. */
  readonly refuse: (id: string) => void;
  /** Whether windows page by creation time (keyset) or, for a service that cannot be paged so, by tokens. */
  readonly keyset: Fallback;
  /**
   * Whether the run was found out of creation order before this process saw it (by a process it
   * resumes, or another worker): the query a window it claims goes on with, by its saved token,
   * moves no cursor.
   */
  readonly doubted: { seen: boolean };
  /** Whether bursts may still be paged from both ends (the service takes the ticket order). */
  readonly ticketOrder: Fallback;
}
