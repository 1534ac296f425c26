/**
 * The task copy in one SQLite file, through `node:sqlite` (Node 22.5+; no native dependency).
 * Import it from `@idgov/sdk/sync/sqlite`.
 *
 * @module sync/sqlite
 */

import { ConfigurationError } from '../../core/errors/errors.ts';
import { optionKeys, unknownOptionProblem } from '../../internal/known-options.ts';
import { nodeFloorProblem } from '../../internal/node-floor.ts';
import { wholeNumberProblem } from '../../internal/numbers.ts';
import {
  type ChangeBatch,
  type ChangeFeed,
  type ChangeRecord,
  type ChangesQuery,
  changeFeedProblem,
  FeedAccess,
  type TaskChange,
} from '../changes.ts';
import { type CopiedTask, type CopyReader, readTasks } from '../copy-reader.ts';
import { type CopyQuery, type CopyRecord, type ReadBatch, readRecords } from '../copy-rows.ts';
import type { CopyStatus } from '../copy-status.ts';
import type { SyncStore } from '../store.ts';
import { type CopyAccess, CopyHere, type CopyMethod, CopyThread } from './copy-calls.ts';
import type { SqliteCopyOptions, SqliteSyncStoreOptions } from './options.ts';

export type { SqliteSyncStoreOptions } from './options.ts';

// What a store opened with readOnly may call.
const READS: ReadonlySet<CopyMethod> = new Set<CopyMethod>([
  'readRows',
  'readChanges',
  'hasCompletedRun',
  'status',
  'close',
]);

/**
 * A task copy in one SQLite file, for one process at a time: the tables `idgov_tasks` and
 * `idgov_expanded` that you query, and the sync's checkpoints beside them, committed together. A
 * commit is on the disk before anyone reads it (WAL, `synchronous = FULL`), so neither a killed
 * process nor power loss undoes what a reader of the copy or its change feed saw. The database
 * works in a thread of its own (unless `thread: false`), so that its writes never hold up the
 * pages being fetched.
 *
 * @example
 * const store = new SqliteSyncStore({ path: 'tasks.db' });
 *
 * @group Task sync
 */
export class SqliteSyncStore implements SyncStore, CopyReader, ChangeFeed {
  /** The database file. */
  readonly path: string;
  readonly #options: SqliteCopyOptions;
  readonly #copy: CopyAccess;
  #closed = false;
  readonly #unlisten: () => void;

  constructor(options: SqliteSyncStoreOptions) {
    // Here, not in its thread: a thread that cannot load node:sqlite fails as a transient failure would.
    const tooOld = nodeFloorProblem('SqliteSyncStore');
    if (tooOld) throw new ConfigurationError(tooOld);
    const unknown = unknownOptionProblem(
      'SqliteSyncStore',
      options,
      optionKeys<SqliteSyncStoreOptions>()([
        'path',
        'busyTimeoutMs',
        'readOnly',
        'changeFeed',
        'signal',
        'thread',
      ]),
    );
    if (unknown) throw new ConfigurationError(unknown);
    if (typeof options?.path !== 'string' || options.path === '') {
      throw new ConfigurationError('path must name the SQLite file of the task copy, e.g. "task-copy.db".');
    }
    const busy = options.busyTimeoutMs ?? 5_000;
    if (wholeNumberProblem(busy, 0)) {
      throw new ConfigurationError(`busyTimeoutMs must be a whole number of ms (got ${busy}).`);
    }
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw new ConfigurationError(
        "signal must be an AbortSignal (the controller's signal: new AbortController().signal), or left out.",
      );
    }
    const feedProblem = changeFeedProblem(options.changeFeed);
    if (feedProblem) throw new ConfigurationError(feedProblem);
    if (options.thread !== undefined && typeof options.thread !== 'boolean') {
      throw new ConfigurationError(
        `thread must be true (a thread of its own, the default) or false (the caller's), or left out (got ${String(options.thread)}).`,
      );
    }
    this.path = options.path;
    this.#options = {
      path: options.path,
      busyTimeoutMs: busy,
      readOnly: options.readOnly === true,
      changeFeed: options.changeFeed ?? 'all',
      holder: crypto.randomUUID(),
      stop: new Int32Array(new SharedArrayBuffer(4)),
    };
    this.#copy = options.thread === false ? new CopyHere(this.#options) : new CopyThread(this.#options);
    const { stop } = this.#options;
    const stopping = () => Atomics.store(stop, 0, 1);
    const { signal } = options;
    if (signal?.aborted) stopping();
    signal?.addEventListener('abort', stopping, { once: true });
    this.#unlisten = () => signal?.removeEventListener('abort', stopping);
  }

  #call<T>(method: CopyMethod, ...args: unknown[]): Promise<T> {
    if (this.#closed) return Promise.reject(new ConfigurationError(`The task copy ${this.path} is closed.`));
    if (this.#options.readOnly && !READS.has(method)) {
      return Promise.reject(
        new ConfigurationError(
          `The task copy ${this.path} was opened with readOnly: open it without readOnly to ${method === 'pruneChanges' ? 'prune its change feed' : 'sync it'}.`,
        ),
      );
    }
    return this.#copy.call(method, args);
  }

  open: SyncStore['open'] = (identity) => this.#call('open', identity);
  unfinishedRun: SyncStore['unfinishedRun'] = () => this.#call('unfinishedRun');
  beginRun: SyncStore['beginRun'] = (kind, startedAt, windows) =>
    this.#call('beginRun', kind, startedAt, windows);
  claimWindow: SyncStore['claimWindow'] = (run, lease) => this.#call('claimWindow', run, lease);
  splitLargest: SyncStore['splitLargest'] = (run, limits) => this.#call('splitLargest', run, limits);
  commitPage: SyncStore['commitPage'] = (run, window, page, lease) =>
    this.#call('commitPage', run, window, page, lease);
  claimOpenTasks: SyncStore['claimOpenTasks'] = (run, lease, limit) =>
    this.#call('claimOpenTasks', run, lease, limit);
  commitRefresh: SyncStore['commitRefresh'] = (run, batch, lease) =>
    this.#call('commitRefresh', run, batch, lease);
  finishRun: SyncStore['finishRun'] = (run, finishedAt) => this.#call('finishRun', run, finishedAt);
  endRun: SyncStore['endRun'] = (run) => this.#call('endRun', run);
  renewLeases: SyncStore['renewLeases'] = (holders, ms) => this.#call('renewLeases', holders, ms);
  endLeases: SyncStore['endLeases'] = (holders) => this.#call('endLeases', holders);
  release: SyncStore['release'] = () => this.#call('release');

  /** Whether a run of the copy has completed: until then it holds part of the tenant's tasks. */
  hasCompletedRun(): Promise<boolean> {
    return this.#call('hasCompletedRun');
  }

  /** Where the copy stands: what it holds, its last completed run, the run under way or stopped, its feed's last `seq`. */
  status(): Promise<CopyStatus> {
    return this.#call('status');
  }

  /**
   * The copy's rows as stored, in `query.order` (ID by default), read in batches (any size of copy in
   * constant memory).
   */
  rows(query: CopyQuery = {}): AsyncGenerator<CopyRecord, void, undefined> {
    return readRecords(this.#readBatch, query);
  }

  /**
   * The copy's tasks, typed, in `query.order` (ID by default), read in batches.
   *
   * @example
   * for await (const { task } of store.tasks({ state: TaskState.OPEN })) console.log(task.id);
   */
  tasks(query: CopyQuery = {}): AsyncGenerator<CopiedTask, void, undefined> {
    return readTasks(this.#readBatch, query);
  }

  readonly #readBatch: ReadBatch = (after, limit, query) =>
    this.#call<CopyRecord[]>('readRows', after, limit, {
      state: query.state,
      includeDeleted: query.includeDeleted,
      order: query.order,
    });

  /**
   * The change feed after `query.after`, typed, in `seq` order; with `follow`, waiting for new
   * changes until `query.signal` aborts. A store opened with `readOnly` reads it while another
   * process syncs the copy.
   *
   * @example
   * for await (const change of store.changes({ after: saved, kinds: ['deleted'] })) console.log(change.taskId);
   */
  changes(query: ChangesQuery = {}): AsyncGenerator<TaskChange, void, undefined> {
    return this.#feed.changes(query);
  }

  /** The change feed as stored, as {@link SqliteSyncStore.changes} reads it. */
  changeRows(query: ChangesQuery = {}): AsyncGenerator<ChangeRecord, void, undefined> {
    return this.#feed.changeRows(query);
  }

  /** Deletes the feed's changes before `seq` (retention): how many. Refused by a `readOnly` store. */
  async pruneChanges(before: number): Promise<number> {
    return this.#feed.pruneChanges(before);
  }

  readonly #feed = new FeedAccess(
    (after, limit, kinds) => this.#call<ChangeBatch>('readChanges', after, limit, kinds),
    (before) => this.#call<number>('pruneChanges', before),
  );

  /** Lets the copy go and closes the database (and its thread); a second call does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    // Calls made from here on are refused; those made before are answered first.
    this.#closed = true;
    this.#unlisten();
    if (this.#copy.started) await this.#copy.close();
  }
}
