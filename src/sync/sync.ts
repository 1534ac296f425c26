import { TaskSearchSortBy } from '../../schemas/enums.ts';
import type { TaskSearchRequest } from '../../schemas/task-search.ts';
import { AbortError } from '../core/errors.ts';
import type { Hooks } from '../core/hooks.ts';
import { BadRequestError } from '../core/status-errors.ts';
import { wait } from '../internal/wait.ts';
import type { SyncEvents, SyncSummary } from './events.ts';
import { type ResolvedSyncOptions, resolveSyncOptions, type TaskSyncOptions } from './options.ts';
import { SyncProgressMeter } from './progress.ts';
import { copyTime, expandedRows, taskRows } from './rows.ts';
import type { SyncLease, SyncRun, SyncWindow } from './store.ts';
import { firstWindows } from './windows.ts';

// A window with no more than this much creation time left is not split: what is left of it is a
// few instants, and tasks sharing one instant can only be paged with tokens.
const MIN_SPLIT_MS = 2;
// Refs asked for at once when refreshing the tasks the copy holds as open.
const REFRESH_BATCH = 100;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A complete, current copy of a tenant's tasks in a store of yours, resumable after any crash.
 *
 * A full run pages every task in creation order (deleted ones included), in windows of creation
 * time that `concurrency` cursors page at once; an idle cursor splits the window with the most time
 * left, so the work moves to where the tasks are. Each page's tasks and its window's progress commit
 * in one transaction, and a resumed window restarts from its last committed creation time, so a run
 * killed at any instant loses nothing and repeats at most a page a window. Later runs are
 * incremental: tasks created since the last run (with an overlap), then every task the copy holds
 * as open, to see it closed or deleted. `run({ full: true })` pages everything again and marks the
 * tasks that vanished.
 *
 * @example
 * const sync = new TaskSync({ client, store: new SqliteSyncStore({ path: 'tasks.db' }) });
 * const summary = await sync.run();
 * console.log(`${summary.tasksNew} new, ${summary.tasksChanged} changed, ${summary.pages} pages`);
 *
 * @group Task sync
 */
export class TaskSync {
  /** Typed hooks: `progress` after every page, `window` as windows are claimed, split and done, `runEnd`. */
  readonly hooks: Hooks<SyncEvents>;
  readonly #options: ResolvedSyncOptions;

  constructor(options: TaskSyncOptions) {
    this.#options = resolveSyncOptions(options);
    this.hooks = this.#options.hooks;
  }

  /**
   * Runs the sync: resumes an unfinished run, else starts an incremental one (a full one for an
   * empty copy, or with `full: true`). Resolves with a summary once the run finished, or once
   * `signal` stopped it (`complete: false`: every committed page is kept, and the next run resumes).
   */
  async run(options: { readonly signal?: AbortSignal; readonly full?: boolean } = {}): Promise<SyncSummary> {
    const { store, client } = this.#options;
    const started = performance.now();
    const copy = await store.open({ baseUrl: client.baseUrl, filter: this.#options.filterKey });
    let summary: SyncSummary;
    try {
      summary = await this.#resumeOrBegin(copy.lastRunStartedAt, options, started);
    } finally {
      await store.release();
    }
    this.#options.hooks.emit('runEnd', () => summary);
    return summary;
  }

  async #resumeOrBegin(
    lastRunStartedAt: number | undefined,
    options: { readonly signal?: AbortSignal; readonly full?: boolean },
    started: number,
  ): Promise<SyncSummary> {
    const { store } = this.#options;
    let run = await store.unfinishedRun();
    if (!run) {
      const startedAt = store.time ? await store.time() : this.#options.now();
      const full = options.full === true || lastRunStartedAt === undefined;
      const from = full
        ? await this.#earliest(options.signal)
        : (lastRunStartedAt as number) - this.#options.overlapMs;
      // A full run starts a window a cursor; an incremental one, whose stretch of time is short and
      // mostly empty, one window, split only where its first pages find tasks.
      const windows =
        from === undefined ? [] : firstWindows(from, startedAt, full ? this.#options.concurrency : 1);
      run = await store.beginRun(full ? 'full' : 'incremental', startedAt, windows);
    }
    const meter = new SyncProgressMeter(this.#options.hooks, run);
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let complete = false;
    try {
      await this.#work(run, meter, signal, stop);
      complete = true;
    } catch (error) {
      if (!options.signal?.aborted) throw error;
    }
    return meter.summary(complete, performance.now() - started);
  }

  /** The run's work, by every cursor, until the run is over. */
  async #work(
    run: SyncRun,
    meter: SyncProgressMeter,
    signal: AbortSignal,
    stop: AbortController,
  ): Promise<void> {
    const worker = crypto.randomUUID();
    await Promise.all(
      Array.from({ length: this.#options.concurrency }, (_, i) =>
        this.#cursor(run, meter, signal, { holder: `${worker}/${i}`, ms: this.#options.leaseMs }).catch(
          (error: unknown) => {
            stop.abort(error);
            throw error;
          },
        ),
      ),
    );
    if (signal.aborted) throw new AbortError('The sync was stopped.', { cause: signal.reason });
  }

  /** Closes the store (its database). */
  async close(): Promise<void> {
    await this.#options.store.close();
  }

  /** The creation time of the first task, or undefined when there is none. */
  async #earliest(signal: AbortSignal | undefined): Promise<number | undefined> {
    const page = await this.#options.client.tasks.search(
      { ...this.#request(), pageSize: 10, expandMask: undefined },
      { signal },
    );
    const first = page.list?.find((view) => view?.task?.createdAt)?.task?.createdAt;
    const at = copyTime(first);
    return at === undefined ? undefined : Date.parse(at);
  }

  /** What every request of the sync asks: creation order, deleted tasks too, the filter, the expansions. */
  #request(): TaskSearchRequest {
    const { filter, expand, pageSize } = this.#options;
    return {
      ...filter,
      sortBy: TaskSearchSortBy.CREATED_AT,
      includeDeleted: true,
      pageSize,
      ...(expand.length > 0 ? { expandMask: { paths: [...expand] } } : {}),
    } as TaskSearchRequest;
  }

  /**
   * One cursor, until the run is over: pages a free window (a dead worker's included, once its
   * lease ran out); else splits the largest; else refreshes a batch of open tasks; else ends the
   * run, or, while other cursors or workers still hold work, waits for them.
   */
  async #cursor(
    run: SyncRun,
    meter: SyncProgressMeter,
    signal: AbortSignal,
    lease: SyncLease,
  ): Promise<void> {
    const { store } = this.#options;
    while (!signal.aborted) {
      const window = await store.claimWindow(run, lease);
      if (window) {
        meter.window('claimed', window);
        await this.#page(run, window, meter, signal, lease);
        continue;
      }
      const minTasks = 2 * this.#options.pageSize;
      if (await store.splitLargest(run, { minTasks, minSpanMs: MIN_SPLIT_MS })) {
        meter.window('split', undefined);
        continue;
      }
      if (run.kind === 'incremental' && (await this.#refresh(run, meter, signal, lease))) continue;
      const end = await store.finishRun(run, this.#options.now());
      meter.counted({ new: 0, changed: 0, deleted: end.vanished }, 0);
      if (end.finished) return;
      await wait(Math.min(1_000, this.#options.leaseMs / 10), { signal });
    }
  }

  /** Pages one window to its end, committing each page with the window's progress. */
  async #page(
    run: SyncRun,
    window: SyncWindow,
    meter: SyncProgressMeter,
    signal: AbortSignal,
    lease: SyncLease,
  ): Promise<void> {
    const { client, store, now } = this.#options;
    let { cursor, token, queryFrom, queryTo } = window;
    let to = window.to;
    for (;;) {
      // Both bounds a millisecond wide of the window, so that neither an inclusive nor an exclusive
      // bound of the service loses a task at an edge; a task fetched twice is upserted once.
      const request = {
        ...this.#request(),
        createdAfter: iso(queryFrom - 1),
        createdBefore: iso(queryTo + 1),
        ...(token ? { pageToken: token } : {}),
      };
      let page: Awaited<ReturnType<typeof client.tasks.search>>;
      try {
        page = await client.tasks.search(request, { signal });
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
          syncedAt: now(),
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
  async #refresh(
    run: SyncRun,
    meter: SyncProgressMeter,
    signal: AbortSignal,
    lease: SyncLease,
  ): Promise<boolean> {
    const { client, store, now } = this.#options;
    const ids = await store.claimOpenTasks(run, lease, REFRESH_BATCH);
    if (ids.length === 0) return false;
    const request = { ...this.#request(), refs: ids.map((id) => ({ id })), pageSize: REFRESH_BATCH };
    const views = await client.tasks.search(request, { signal }).toArray();
    const tasks = taskRows(views);
    const returned = new Set(tasks.map((row) => row.id));
    const counts = await store.commitRefresh(
      run,
      { tasks, vanished: ids.filter((id) => !returned.has(id)), syncedAt: now() },
      lease,
    );
    meter.counted(counts, Math.ceil(views.length / REFRESH_BATCH) || 1, tasks.length);
    return true;
  }
}
