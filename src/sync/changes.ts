/**
 * The change feed of a task copy: one row for each real change the sync made to the copy, written
 * in the same transaction as the change itself, numbered in commit order (`seq`). What a row is, how
 * a reader follows the feed from a saved position. The kinds of change are in `change-kinds.ts`.
 *
 * @module
 */
import type { TaskState } from '../../schemas/enums.ts';
import { type Task, TaskSchema } from '../../schemas/task.ts';
import { ConfigurationError } from '../core/errors/errors.ts';
import { parseResponse } from '../core/validation/validation.ts';
import { abortable, MAX_TIMER_MS, wait } from '../internal/wait.ts';
import { StoreError } from '../stores/store-error.ts';
import { CHANGE_KINDS, type ChangeKind } from './change-kinds.ts';
import { ChangesAheadError } from './changes-ahead.ts';
import { ChangesPrunedError } from './changes-pruned.ts';

/**
 * A row of the feed as stored (`<prefix>_changes`).
 *
 * @group Task sync
 */
export interface ChangeRecord {
  /** The change's position: increasing in commit order, never reused (pruning leaves gaps). */
  readonly seq: number;
  readonly kind: ChangeKind;
  readonly taskId: string;
  /** When the copy saw the change (the page's fetch, or the end of the run that found it gone), ISO 8601 UTC. */
  readonly at: string;
  /** The task's state before the change; undefined for one new to the copy. */
  readonly previousState: string | undefined;
  /** The task's state after it. */
  readonly state: string | undefined;
  /** The task's JSON after the change: as sent (SQLite), or as `jsonb` gives it back (PostgreSQL). */
  readonly json: string;
}

/**
 * A change of the feed, typed.
 *
 * @group Task sync
 */
export interface TaskChange {
  readonly seq: number;
  readonly kind: ChangeKind;
  readonly taskId: string;
  readonly at: Date;
  readonly previousState: TaskState | undefined;
  readonly state: TaskState | undefined;
  /** The task after the change, checked against the schema. */
  readonly task: Task;
}

/**
 * Which changes to read: `store.changes({ after: savedSeq, follow: true, signal })`.
 *
 * @group Task sync
 */
export interface ChangesQuery {
  /** Only changes after this `seq` (the last one you handled). Default 0: from the start. */
  readonly after?: number | undefined;
  /** Only changes of these kinds. Default every kind. */
  readonly kinds?: readonly ChangeKind[] | undefined;
  /**
   * Waits for new changes once the feed is read, instead of ending; the iteration ends when
   * `signal` aborts (a clean stop, not an error). Default false.
   */
  readonly follow?: boolean | undefined;
  /** Ends the iteration: at once while it waits, otherwise after the change in hand. */
  readonly signal?: AbortSignal | undefined;
  /** While following, how often to look for new changes, in ms. Default 500. */
  readonly pollMs?: number | undefined;
  /**
   * Told, once every change of a batch was handed out, the `seq` the reader has read through
   * (changes of the kinds left out included): with `kinds`, save the later of it and the last change
   * you handled as the position to resume from (each change handled before the next is asked for, as
   * a plain `for await` does), which may be well past the last change handed out.
   * A position saved at the last change handed out stays behind, and a prune past it makes the next
   * read fail with `ChangesPrunedError`. Also told, with the position unchanged, at the first read
   * that answers (of the iteration, or after failures it waited out) when it finds nothing new: a
   * follower knows that way that its store answers again.
   */
  readonly onPosition?: ((seq: number) => void) | undefined;
}

/**
 * The change feed of a copy: what `SqliteSyncStore` and `PostgresSyncStore` offer besides syncing.
 *
 * @group Task sync
 */
export interface ChangeFeed {
  /** The feed's changes after `query.after`, typed, in `seq` order, read in batches (constant memory). */
  changes(query?: ChangesQuery): AsyncGenerator<TaskChange, void, undefined>;
  /** The same, as stored. */
  changeRows(query?: ChangesQuery): AsyncGenerator<ChangeRecord, void, undefined>;
  /** Deletes the changes before `seq` (retention); resolves with how many. Positions are never reused. */
  pruneChanges(before: number): Promise<number>;
}

/**
 * Whether a copy's feed records the first full copy (`all`, the default: folding the feed from
 * `seq` 0 gives the copy), or begins once a first run completed (`after-first-copy`: a large first
 * copy is not a large first feed; a reader starts from the copy as that run left it). It is the
 * copy's, set by its first commit: a first run resumed with the other setting goes on as it began,
 * so the feed is never half of a first copy.
 *
 * @group Task sync
 */
export type ChangeFeedStart = 'all' | 'after-first-copy';

/**
 * A batch of the feed as a store read it: the changes of the kinds asked for among the next `limit`
 * rows by `seq`. A reader of some kinds moves past the rows of others by `through`, so each poll
 * reads a bounded stretch, however many changes of other kinds there are.
 */
export interface ChangeBatch {
  /** The changes of the kinds asked for, by `seq`. */
  readonly records: readonly ChangeRecord[];
  /** The greatest `seq` looked at, a change of another kind included; undefined when there was none. */
  readonly through: number | undefined;
  /** The least `seq` looked at: past `after + 1`, the changes between were pruned. */
  readonly first: number | undefined;
  /** Whether `limit` rows were looked at: more may follow at once. */
  readonly full: boolean;
  /**
   * When no row follows `after`: the last `seq` the feed handed out (0 when none), pruned or not. A
   * position past it belongs to another feed (the copy was made again). Optional for stores of
   * your own: without it, that goes unnoticed.
   */
  readonly last?: number | undefined;
}

/** Reads the rows after `after`, up to `limit` of them, keeping the changes of `kinds` (every kind when undefined). */
export type ReadChanges = (
  after: number,
  limit: number,
  kinds: readonly ChangeKind[] | undefined,
) => Promise<ChangeBatch>;

// Changes a store reads at once.
const BATCH = 500;

// How long a follower waits out a store's transient failures before it gives up.
const FOLLOW_PATIENCE_MS = 30_000;

/** A problem with `value` as the position `name` in the feed; undefined when there is none. */
export function seqProblem(name: string, value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return undefined;
  return `${name} must be a seq of the change feed, a whole number of 0 or more (got ${String(value)}).`;
}

/** A problem with a store's `changeFeed` option; undefined when there is none. */
export function changeFeedProblem(start: unknown): string | undefined {
  if (start === undefined || start === 'all' || start === 'after-first-copy') return undefined;
  return `changeFeed must be 'all' or 'after-first-copy' (got ${JSON.stringify(start)}).`;
}

/** A problem with `query`, naming the field and the fix; undefined when there is none. */
export function changesQueryProblem(query: ChangesQuery): string | undefined {
  const after = seqProblem('after', query.after ?? 0);
  if (after) return after;
  if (query.kinds !== undefined && !Array.isArray(query.kinds)) {
    return `kinds must be an array of change kinds, such as ['deleted', 'vanished'] (got ${typeof query.kinds === 'string' ? JSON.stringify(query.kinds) : String(query.kinds)}).`;
  }
  const unknown = (query.kinds ?? []).filter((kind) => !CHANGE_KINDS.includes(kind));
  if (unknown.length > 0) {
    return `kinds may hold ${CHANGE_KINDS.join(', ')} (got ${unknown.map(String).join(', ')}).`;
  }
  if (query.onPosition !== undefined && typeof query.onPosition !== 'function')
    return `onPosition must be a function of the seq read through (got ${typeof query.onPosition}).`;
  const poll = query.pollMs ?? 500;
  if (!Number.isSafeInteger(poll) || poll < 1 || poll > MAX_TIMER_MS)
    return `pollMs must be a whole number of ms from 1 to ${MAX_TIMER_MS} (got ${poll}).`;
  return undefined;
}

/**
 * A store's feed, read and pruned: `read` reads a batch and `prune` deletes, as the store does; the
 * queries are checked here (a bad one throws a `ConfigurationError` naming the field, before
 * anything is read). Both stores' feed methods are this.
 */
export class FeedAccess implements ChangeFeed {
  readonly #read: ReadChanges;
  readonly #prune: (before: number) => Promise<number>;

  constructor(read: ReadChanges, prune: (before: number) => Promise<number>) {
    this.#read = read;
    this.#prune = prune;
  }

  changes(query: ChangesQuery = {}): AsyncGenerator<TaskChange, void, undefined> {
    return readChanges(this.#checked(query), query);
  }

  changeRows(query: ChangesQuery = {}): AsyncGenerator<ChangeRecord, void, undefined> {
    return readChangeRecords(this.#checked(query), query);
  }

  async pruneChanges(before: number): Promise<number> {
    const problem = seqProblem('before', before);
    if (problem) throw new ConfigurationError(problem);
    return this.#prune(before);
  }

  #checked(query: ChangesQuery): ReadChanges {
    const problem = changesQueryProblem(query);
    if (problem) throw new ConfigurationError(problem);
    return this.#read;
  }
}

/** The feed's rows, read `BATCH` at a time by `read`; with `follow`, waiting for more until `signal` aborts. */
export async function* readChangeRecords(
  read: ReadChanges,
  query: ChangesQuery = {},
): AsyncGenerator<ChangeRecord, void, undefined> {
  let after = query.after ?? 0;
  const kinds = query.kinds && query.kinds.length > 0 ? [...query.kinds] : undefined;
  let failingSince: number | undefined;
  // Whether onPosition was told since the iteration began or its store last failed.
  let told = false;
  for (;;) {
    if (query.signal?.aborted) return;
    let batch: ChangeBatch;
    try {
      // An abort ends the wait for a read that may never answer (a connection gone half-open).
      batch = await abortable(read(after, BATCH, kinds), query.signal);
      failingSince = undefined;
    } catch (error) {
      told = false;
      if (query.signal?.aborted) return;
      // A follower runs for days: a failure that passes (a database restarting) is waited out, as
      // a sync waits out its store's, for a while; any other ends the iteration at once.
      if (!query.follow || !(error instanceof StoreError && error.transient)) throw error;
      // By the monotonic clock: a wall clock put right mid-outage must neither end nor stretch it.
      failingSince ??= performance.now();
      if (performance.now() - failingSince > FOLLOW_PATIENCE_MS) throw error;
      if (!(await wait(query.pollMs ?? 500, { signal: query.signal }))) return;
      continue;
    }
    // Handed out one after another, seqs have a gap only where a prune was: a reader from 0 reads what is left.
    if (after > 0 && batch.first !== undefined && batch.first > after + 1)
      throw new ChangesPrunedError(after, batch.first);
    // Every change past the position pruned, to the feed's end: no row follows, but seqs were handed out.
    if (after > 0 && batch.first === undefined && batch.last !== undefined && after < batch.last)
      throw new ChangesPrunedError(after, batch.last + 1);
    if (batch.last !== undefined && after > batch.last) throw new ChangesAheadError(after, batch.last);
    for (const row of batch.records) {
      yield row;
      if (query.signal?.aborted) return;
    }
    if (batch.through !== undefined) after = batch.through;
    if (batch.through !== undefined || !told) query.onPosition?.(after);
    told = true;
    if (batch.full) continue;
    if (!query.follow) return;
    if (!(await wait(query.pollMs ?? 500, { signal: query.signal }))) return;
  }
}

/** The feed's changes, typed: each row's JSON checked against the task schema, naming the field that fails. */
export async function* readChanges(
  read: ReadChanges,
  query: ChangesQuery = {},
): AsyncGenerator<TaskChange, void, undefined> {
  for await (const row of readChangeRecords(read, query)) {
    yield {
      seq: row.seq,
      kind: row.kind,
      taskId: row.taskId,
      at: new Date(row.at),
      previousState: row.previousState as TaskState | undefined,
      state: row.state as TaskState | undefined,
      task: parseResponse(TaskSchema, row.json, `change ${row.seq} of task ${row.taskId}`),
    };
  }
}
