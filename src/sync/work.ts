/**
 * A run's two kinds of work, each a cursor's for a while: paging a window of creation time, and
 * refreshing a batch of the tasks the copy holds as open. Each commits with its progress, so a
 * process killed at any instant loses nothing.
 *
 * @module
 */
import { TaskSearchSortBy } from '../../schemas/enums.ts';
import type { TaskSearchRequest } from '../../schemas/task-search.ts';
import { AbortError } from '../core/errors.ts';
import { BadRequestError } from '../core/status-errors.ts';
import type { Doorbell } from './doorbell.ts';
import type { ResolvedSyncOptions } from './options.ts';
import type { SyncProgressMeter } from './progress.ts';
import { copyTime, expandedRows, taskRows } from './rows.ts';
import type { SyncLease, SyncRun, SyncStore, SyncWindow } from './store.ts';

// Refs asked for at once when refreshing the tasks the copy holds as open.
const REFRESH_BATCH = 100;

const iso = (ms: number) => new Date(ms).toISOString();

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
}

/** What every request of the sync asks: creation order, deleted tasks too, the filter, the expansions. */
export function syncRequest(options: ResolvedSyncOptions): TaskSearchRequest {
  const { filter, expand, pageSize } = options;
  return {
    ...filter,
    sortBy: TaskSearchSortBy.CREATED_AT,
    includeDeleted: true,
    pageSize,
    ...(expand.length > 0 ? { expandMask: { paths: [...expand] } } : {}),
  } as TaskSearchRequest;
}

/** The creation time of the tenant's first task (of the filter), or undefined when there is none. */
export async function earliestTask(
  options: ResolvedSyncOptions,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const page = await options.client.tasks.search(
    { ...syncRequest(options), pageSize: 10, expandMask: undefined },
    { signal },
  );
  const first = page.list?.find((view) => view?.task?.createdAt)?.task?.createdAt;
  const at = copyTime(first);
  return at === undefined ? undefined : Date.parse(at);
}

/**
 * Pages `window` to its end under `lease`, committing each page with the window's progress; stops
 * early when another holder took the window over (this one's lease ran out).
 */
export async function pageWindow(ctx: RunContext, window: SyncWindow, lease: SyncLease): Promise<void> {
  const { options, store, run, meter, signal } = ctx;
  let { cursor, token, queryFrom, queryTo } = window;
  let to = window.to;
  for (;;) {
    // Both bounds a millisecond wide of the window, so that neither an inclusive nor an exclusive
    // bound of the service loses a task at an edge; a task fetched twice is upserted once.
    const request = {
      ...syncRequest(options),
      createdAfter: iso(queryFrom - 1),
      createdBefore: iso(queryTo + 1),
      ...(token ? { pageToken: token } : {}),
    };
    let page: Awaited<ReturnType<typeof options.client.tasks.search>>;
    try {
      page = await options.client.tasks.search(request, { signal });
    } catch (error) {
      // A saved token may have expired, or be bound to a request the service no longer takes:
      // restart the query from the last committed creation time.
      if (token && error instanceof BadRequestError) {
        token = undefined;
        queryFrom = cursor;
        queryTo = to;
        continue;
      }
      if (signal.aborted) throw new AbortError('The sync was stopped.', { cause: signal.reason });
      throw error;
    }
    const tasks = taskRows(page.list);
    const last = tasks.reduce(
      (latest, row) => Math.max(latest, row.createdAt ? Date.parse(row.createdAt) : latest),
      cursor,
    );
    const next = page.nextPageToken || undefined;
    const result = await store.commitPage(
      run,
      window,
      {
        tasks,
        expanded: expandedRows(page.expanded),
        cursor: last,
        moved: last > cursor,
        queryFrom,
        queryTo,
        token: next,
        exhausted: next === undefined,
        syncedAt: options.now(),
      },
      lease,
    );
    if (result.lost) {
      meter.window('lost', window);
      return;
    }
    meter.page(result.counts, tasks.length, window, last, result.to);
    if (result.done) {
      meter.window('done', window);
      return;
    }
    cursor = last;
    to = result.to;
    token = next;
  }
}

/**
 * Refreshes a batch of the tasks the copy holds as open (claimed under `lease`), committed in one
 * transaction; false when no batch is left to claim.
 */
export async function refreshBatch(ctx: RunContext, lease: SyncLease): Promise<boolean> {
  const { options, store, run, meter, signal } = ctx;
  const ids = await store.claimOpenTasks(run, lease, REFRESH_BATCH);
  if (ids.length === 0) return false;
  const request = { ...syncRequest(options), refs: ids.map((id) => ({ id })), pageSize: REFRESH_BATCH };
  const views = await options.client.tasks.search(request, { signal }).toArray();
  const tasks = taskRows(views);
  const returned = new Set(tasks.map((row) => row.id));
  const counts = await store.commitRefresh(
    run,
    { tasks, vanished: ids.filter((id) => !returned.has(id)), syncedAt: options.now() },
    lease,
  );
  meter.counted(counts, Math.ceil(views.length / REFRESH_BATCH) || 1, tasks.length);
  return true;
}
