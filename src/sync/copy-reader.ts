/**
 * Reading a task copy back, typed: each row's JSON checked against the task schema as a search's
 * answer is, in batches by ID so that a copy of any size reads in constant memory. Shared by the
 * SQLite and PostgreSQL stores.
 *
 * @module
 */
import type { TaskState } from '../../schemas/enums.ts';
import { type Task, TaskSchema } from '../../schemas/task.ts';
import { checkResponse, parseResponse } from '../core/validation/validation.ts';

/**
 * Which tasks of the copy to read: `store.tasks({ state: TaskState.OPEN })`.
 *
 * @group Task sync
 */
export interface CopyQuery {
  /** Only tasks in this state. Default any. */
  readonly state?: TaskState | undefined;
  /** Deleted tasks too. Default false. */
  readonly includeDeleted?: boolean | undefined;
}

/**
 * A task as the copy holds it.
 *
 * @group Task sync
 */
export interface CopiedTask {
  /** The task as the service last sent it, checked against the schema. */
  readonly task: Task;
  /** Whether it was deleted (`deleted_at` is set). */
  readonly deleted: boolean;
  /** When the sync last fetched it. */
  readonly syncedAt: Date;
}

/** A row of the copy as a store reads it: the task as JSON text (SQLite) or parsed (PostgreSQL `jsonb`). */
export interface CopyRow {
  readonly id: string;
  readonly task: string | object;
  readonly deleted: boolean;
  readonly syncedAt: string | Date;
}

// Rows a store reads at once.
const BATCH = 500;

/**
 * The copy's tasks in ID order, read `BATCH` at a time by `read(afterId, limit)` (rows with an ID
 * above `afterId`, in ID order); a row that does not match the schema throws
 * `ResponseValidationError` naming the field.
 */
export async function* readCopy(
  read: (afterId: string, limit: number) => Promise<readonly CopyRow[]>,
): AsyncGenerator<CopiedTask, void, undefined> {
  let after = '';
  for (;;) {
    const rows = await read(after, BATCH);
    for (const row of rows) {
      const what = `copied task ${row.id}`;
      const task =
        typeof row.task === 'string'
          ? parseResponse(TaskSchema, row.task, what)
          : checkResponse(TaskSchema, row.task, what, () => JSON.stringify(row.task));
      yield { task, deleted: Boolean(row.deleted), syncedAt: new Date(row.syncedAt) };
    }
    if (rows.length < BATCH) return;
    after = rows.at(-1)?.id ?? after;
  }
}
