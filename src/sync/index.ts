/**
 * A complete, current copy of a tenant's tasks, resumable after any crash: {@link TaskSync} over a
 * client and a store (`SqliteSyncStore` from `@idgov/sdk/sync/sqlite` for one process,
 * `PostgresSyncStore` from `@idgov/sdk/sync/postgres` for many workers). See the task sync guide for
 * the copy's tables and what each kind of run guarantees.
 *
 * @module @idgov/sdk/sync
 */
export type { HookHandlers, Hooks } from '../core/hooks.ts';
export { ChangeKind } from './change-kinds.ts';
export type {
  ChangeFeed,
  ChangeFeedStart,
  ChangeRecord,
  ChangesQuery,
  TaskChange,
} from './changes.ts';
export { ChangesAheadError } from './changes-ahead.ts';
export { ChangesPrunedError } from './changes-pruned.ts';
export type { CopiedTask, CopyReader } from './copy-reader.ts';
export type { CopyQuery, CopyRecord } from './copy-rows.ts';
export type { CopyStatus } from './copy-status.ts';
export type {
  SyncEvents,
  SyncProgress,
  SyncSummary,
  SyncWaitingEvent,
  SyncWindowEvent,
} from './run/events.ts';
export type { SyncFilter, TaskSyncOptions } from './run/options.ts';
export { TaskSync } from './run/task-sync.ts';
export type {
  CommitCounts,
  CopyIdentity,
  CopyState,
  ExpandedRow,
  HeldLease,
  PageCommit,
  PageCommitResult,
  RefreshBatch,
  RunEnd,
  SyncLease,
  SyncRun,
  SyncStore,
  SyncWindow,
  SyncWindowPlan,
  TaskRow,
  WindowOrder,
} from './store.ts';
export { COVERED_EDGE } from './store.ts';
