/**
 * Reading a task copy back: its tasks typed (each row's JSON checked against
 * the task schema as a search's answer is), in batches by key so that a copy of any size reads in
 * constant memory. Shared by the SQLite and PostgreSQL stores, and what `idgov export` reads.
 *
 * @module
 */

import { type Task, TaskSchema } from '../../schemas/task.ts';
import { parseResponse } from '../core/validation/validation.ts';
import { type CopyQuery, type CopyRecord, type ReadBatch, readRecords } from './copy-rows.ts';
import type { CopyStatus } from './copy-status.ts';

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
  /** Whether the copy found it gone from the service (it is then deleted too). */
  readonly vanished: boolean;
  /** When the sync last fetched it. */
  readonly syncedAt: Date;
}

/**
 * Reading a copy back: what `SqliteSyncStore` and `PostgresSyncStore` offer besides syncing.
 *
 * @group Task sync
 */
export interface CopyReader {
  /** The copy's rows as stored, in `query.order`, read in batches (any size of copy in constant memory). */
  rows(query?: CopyQuery): AsyncGenerator<CopyRecord, void, undefined>;
  /** The copy's tasks, typed, in `query.order`; a row the schema does not take throws `ResponseValidationError`. */
  tasks(query?: CopyQuery): AsyncGenerator<CopiedTask, void, undefined>;
  /**
   * Whether a run of the copy has completed. Until the first one does, the copy holds only the
   * tasks it has copied so far: a report made from it then is of part of the tenant.
   */
  hasCompletedRun(): Promise<boolean>;
  /** Where the copy stands: what it holds, its last completed run, the run under way or stopped, its feed's last `seq`. */
  status(): Promise<CopyStatus>;
}

/** The copy's tasks, typed: each row's JSON checked against the task schema, naming the field that fails. */
export async function* readTasks(
  read: ReadBatch,
  query: CopyQuery = {},
): AsyncGenerator<CopiedTask, void, undefined> {
  for await (const row of readRecords(read, query)) {
    const task = parseResponse(TaskSchema, row.json, `copied task ${row.id}`);
    yield {
      task,
      deleted: row.deletedAt !== undefined,
      vanished: row.vanished,
      syncedAt: new Date(row.syncedAt),
    };
  }
}
