/**
 * A task copy's rows as stored, read in batches by key so that a copy of any size reads in constant
 * memory: what a store does where it runs (the SQLite store's thread loads this module, and no
 * schema). `copy-reader.ts` types them.
 *
 * @module
 */
import type { TaskState } from '../../schemas/enums.ts';

/**
 * Which tasks of the copy to read, and in which order: `store.tasks({ state: TaskState.OPEN })`.
 *
 * @group Task sync
 */
export interface CopyQuery {
  /** Only tasks in this state. Default any. */
  readonly state?: TaskState | undefined;
  /** Deleted tasks too (vanished ones among them). Default false. */
  readonly includeDeleted?: boolean | undefined;
  /** `id` (the default), or `created`: oldest first, tasks created at one instant by ID. */
  readonly order?: 'id' | 'created' | undefined;
}

/**
 * A row of the copy as stored: the documented columns of `<prefix>_tasks`, and the task's JSON.
 *
 * @group Task sync
 */
export interface CopyRecord {
  readonly id: string;
  readonly state: string | undefined;
  /** ISO 8601 UTC with milliseconds, as are the other times. */
  readonly createdAt: string | undefined;
  readonly updatedAt: string | undefined;
  /** When the task was deleted, or when the copy found it gone (`vanished`). */
  readonly deletedAt: string | undefined;
  /** The task was not found at the service any more: a full run did not see it, or a refresh missed it. */
  readonly vanished: boolean;
  /** When the sync last fetched it. */
  readonly syncedAt: string;
  /** The task's JSON: as the service sent it (SQLite), or as `jsonb` gives it back (PostgreSQL). */
  readonly json: string;
}

/** Where a batch starts: after the row with this key (in the query's order). */
export interface CopyKey {
  readonly id: string;
  /** The row's `createdAt`, '' for none (which sorts first). */
  readonly createdAt: string;
}

/**
 * A batch in creation order, read in two passes that each follow an index: the rows without a
 * creation time first (by ID), then the others by creation time and ID (the store's index on both).
 * `undated(afterId, limit)` and `dated(after, limit)` read each pass; a key with `createdAt` ''
 * is in the first.
 */
export async function createdOrderBatch(
  after: CopyKey | undefined,
  limit: number,
  undated: (afterId: string, limit: number) => Promise<readonly CopyRecord[]> | readonly CopyRecord[],
  dated: (
    after: CopyKey | undefined,
    limit: number,
  ) => Promise<readonly CopyRecord[]> | readonly CopyRecord[],
): Promise<readonly CopyRecord[]> {
  if (after && after.createdAt !== '') return dated(after, limit);
  const first = await undated(after?.id ?? '', limit);
  return first.length < limit ? [...first, ...(await dated(undefined, limit - first.length))] : first;
}

/** Reads up to `limit` rows after `after` (undefined: from the start) in `query.order`. */
export type ReadBatch = (
  after: CopyKey | undefined,
  limit: number,
  query: CopyQuery,
) => Promise<readonly CopyRecord[]>;

// Rows a store reads at once.
const BATCH = 500;

/** The copy's rows, read `BATCH` at a time by `read`. */
export async function* readRecords(
  read: ReadBatch,
  query: CopyQuery = {},
): AsyncGenerator<CopyRecord, void, undefined> {
  let after: CopyKey | undefined;
  for (;;) {
    const rows = await read(after, BATCH, query);
    yield* rows;
    const last = rows.at(-1);
    if (rows.length < BATCH || !last) return;
    after = { id: last.id, createdAt: last.createdAt ?? '' };
  }
}
