import { AbortError } from '../../core/errors/errors.ts';
import type { Hooks } from '../../core/hooks.ts';
import { isoTime } from '../../internal/time.ts';
import type { CopyState, SyncLease, SyncStore } from '../store.ts';
import type { RunContext } from './context.ts';
import { Doorbell } from './doorbell.ts';
import type { SyncEvents, SyncSummary } from './events.ts';
import { Fallback } from './fallback.ts';
import { type ResolvedSyncOptions, resolveSyncOptions, type TaskSyncOptions } from './options.ts';
import { PageSize } from './page-size.ts';
import { OutageLog, patientStore } from './patient-store.ts';
import { planRun } from './plan.ts';
import { SyncProgressMeter } from './progress.ts';
import { REFRESH_BATCH, refreshTasks } from './refresh.ts';
import { pageWindow } from './work.ts';
import { holding, WorkerLeases } from './worker-leases.ts';

// A window with no more than this much creation time left is not split: what is left of it is a
// few instants, and tasks sharing one instant can only be paged with tokens.
const MIN_SPLIT_MS = 2;

// How often an idle cursor looks again when its own process rang no bell: other workers' splits
// and finished windows are seen then. Short, so that they compete for the work with the cursors of
// the process that splits it.
const IDLE_POLL_MS = 250;

/**
 * A complete, current copy of a tenant's tasks in a store of yours, resumable after any crash.
 *
 * A full run pages every task in creation order (deleted ones included), in windows of creation
 * time that `concurrency` cursors page at once; an idle cursor splits the window with the most time
 * left, so the work moves to where the tasks are. Each page's tasks and its window's progress commit
 * in one transaction, and a resumed window restarts from its last committed creation time, so a run
 * killed at any instant loses nothing and repeats at most a page a window. Later runs are
 * incremental: tasks created since the last run (with an overlap), older tasks acted on since
 * (`includeActedAfter`: a closed task commented on; left out, with a warning, when a probe shows the
 * service does not apply that bound), then every task the copy holds as open that those did not
 * fetch, to see it closed or deleted. `run({ full: true })` pages everything again and marks the
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
   * Runs the sync: resumes an unfinished run (or joins the one other workers run on a shared store),
   * else starts an incremental one (a full one for an empty copy, or with `full: true`). Resolves
   * with a summary once the run finished, or once `signal` stopped it (`complete: false`: every
   * committed page is kept, and the next run resumes). A store's transient failures (a database
   * restarting) are waited out, for about half a minute after each call's first failure; once one
   * call gave up, the run fails with its error.
   */
  async run(options: { readonly signal?: AbortSignal; readonly full?: boolean } = {}): Promise<SyncSummary> {
    const { client, logger } = this.#options;
    const outages = new OutageLog(logger);
    const store = patientStore(this.#options.store, logger, options.signal, outages);
    const started = performance.now();
    let summary: SyncSummary | undefined;
    let copy: CopyState | undefined;
    try {
      copy = await store.open({ baseUrl: client.baseUrl, filter: this.#options.filterKey });
      try {
        summary = await this.#resumeOrBegin(store, copy, options, started);
      } finally {
        await store.release().catch((error: unknown) => {
          // A run that ended well fails on it; a stop is still a stop (the store's failures are no
          // longer waited out), and a run that failed keeps its own error, the cause.
          if (summary !== undefined && !options.signal?.aborted) throw error;
          logger.warn(
            `the sync ${summary === undefined && !options.signal?.aborted ? 'failed' : 'stopped'}, and could not give up its hold on the copy either (${(error as Error)?.message}); the next run takes it over`,
          );
        });
        outages.over();
      }
    } catch (error) {
      // Stopped before the run was begun or resumed (opening the copy, finding the first task):
      // nothing was done, which is a stop like any other, not a failure.
      if (summary !== undefined || !options.signal?.aborted) throw error;
      const full = options.full === true || (copy !== undefined && copy.lastRunStartedAt === undefined);
      summary = SyncProgressMeter.notBegun(full, performance.now() - started);
    }
    const ended = summary;
    this.#options.hooks.emit('runEnd', () => ended);
    return ended;
  }

  /** Closes the store (its database). */
  async close(): Promise<void> {
    await this.#options.store.close();
  }

  async #resumeOrBegin(
    store: SyncStore,
    copy: CopyState,
    options: { readonly signal?: AbortSignal; readonly full?: boolean },
    started: number,
  ): Promise<SyncSummary> {
    let run = await store.unfinishedRun();
    if (run && options.full === true) {
      // A full run was asked for, not the unfinished one: it ends where it stands, and what it
      // committed stays (the full run pages over it).
      await store.endRun(run);
      this.#options.logger.warn(
        `task sync: ended the unfinished ${run.kind} run begun ${isoTime(run.startedAt)} (what it committed stays) to begin the full run asked for`,
      );
      run = undefined;
    }
    // Pages of the probe of includeActedAfter, counted once the run is known.
    let probePages = 0;
    const keyset = new Fallback(
      this.#options.logger,
      'this run pages each window by its page tokens from here on, to their last page, not by creation time, and this process splits none; a task purged between two pages may shift a later one out of them (offset tokens): have the service answer in creation order',
    );
    if (!run) {
      const { full, startedAt, windows } = await planRun(
        this.#options,
        copy,
        options.full === true || copy.lastRunStartedAt === undefined,
        options.signal,
        () => {
          probePages += 1;
        },
        keyset,
      );
      run = await store.beginRun(full ? 'full' : 'incremental', startedAt, windows);
      // Another worker began an incremental run between ending the last one and beginning this:
      // a full run was asked for, so that one ends too.
      if (options.full === true && run.kind !== 'full')
        return this.#resumeOrBegin(store, copy, options, started);
    }
    const meter = new SyncProgressMeter(this.#options.hooks, run);
    if (probePages > 0) meter.fetched(probePages);
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let complete = false;
    try {
      const refused = new Set<string>();
      const refuse = (id: string) => {
        if (refused.has(id)) return;
        refused.add(id);
        this.#options.logger.warn(
          `task sync: left out task ${JSON.stringify(id)}: its ID holds U+0000 or a lone surrogate, which the copy cannot store as sent (changed, it would name no task of the service)`,
        );
      };
      const pageSize = new PageSize(this.#options.pageSize, this.#options.logger);
      await this.#work(
        {
          options: this.#options,
          store,
          run,
          meter,
          signal,
          bell: new Doorbell(),
          pageSize,
          refuse,
          keyset,
          // What a process the run resumes (or another worker) found: saved tokens' pages move no cursor here.
          doubted: { seen: run.unordered === true },
          ticketOrder: new Fallback(
            this.#options.logger,
            'bursts of tasks created at one instant are paged from one end for the rest of this run',
          ),
        },
        stop,
      );
      complete = true;
    } catch (error) {
      if (!options.signal?.aborted) throw error;
    }
    return meter.summary(complete, performance.now() - started);
  }

  /** The run's work, by every cursor, until the run is over; a stop ends the leases its cursors hold. */
  async #work(ctx: RunContext, stop: AbortController): Promise<void> {
    const worker = `${this.#options.workerName} #${crypto.randomUUID().slice(0, 8)}`;
    const leases = new WorkerLeases(this.#options.store, this.#options.leaseMs);
    const holders = Array.from({ length: this.#options.concurrency }, (_, i) => `${worker}/${i}`);
    try {
      // Every cursor ends before the leases do: one still claiming would leave a lease behind.
      const ended = await Promise.allSettled(
        holders.map((holder) =>
          this.#cursor(ctx, { holder, ms: this.#options.leaseMs }, leases, worker).catch((error: unknown) => {
            stop.abort(error);
            throw error;
          }),
        ),
      );
      // The first failure stopped the others: it is the one to tell.
      if (ended.some((end) => end.status === 'rejected')) throw stop.signal.reason;
    } finally {
      // Stopped or failed: the work in hand is free for the next worker at once, not a lease later.
      await leases.stop(holders).catch((error: unknown) => {
        this.#options.logger.warn(
          `task sync: could not give up its leases (${(error as Error)?.message ?? error}); its work passes on when they run out`,
        );
      });
    }
    if (ctx.signal.aborted) throw new AbortError('The sync was stopped.', { cause: ctx.signal.reason });
  }

  /**
   * One cursor, until the run is over: pages a free window (a dead worker's included, once its
   * lease ran out); else splits the largest; else refreshes a batch of open tasks; else ends the
   * run, or, while other cursors or workers still hold work, waits for them, saying for whom.
   */
  async #cursor(ctx: RunContext, lease: SyncLease, leases: WorkerLeases, worker: string): Promise<void> {
    const { store, run, meter, signal, bell } = ctx;
    // A closed bell: another cursor here found the run over.
    while (!signal.aborted && !bell.closed) {
      // A lease runs from when its claim was sent: the heartbeat counts from then.
      let since = performance.now();
      const window = await store.claimWindow(run, lease);
      if (window) {
        meter.window('claimed', window);
        // Work found: the next idle cursor looks too (it is woken one at a time).
        bell.ring();
        await holding(
          ctx,
          { lease, leases, since },
          (held) => pageWindow(held, window, lease),
          () => meter.window('lost', window),
        );
        bell.ring();
        continue;
      }
      // More than a page left is worth an idle cursor's split: the density a window's pages found
      // in its older part underestimates what its newer part holds (tasks are mostly recent).
      const minTasks = this.#options.pageSize;
      // A service that pages out of creation order is paged by tokens: a window reads its whole query
      // to its last page, so a split's half would only be paged twice.
      // Paging a burst from both ends costs pages (its cursor pages its start again, and the ends
      // overlap where they meet): worth it once three in four cursors (or all but one) have nothing else to do.
      const pair =
        ctx.ticketOrder.on &&
        this.#options.concurrency > 1 &&
        bell.waiting + 1 >= Math.max(1, Math.floor((this.#options.concurrency * 3) / 4));
      if (ctx.keyset.on && (await store.splitLargest(run, { minTasks, minSpanMs: MIN_SPLIT_MS, pair }))) {
        meter.window('split', undefined);
        continue;
      }
      since = performance.now();
      const ids = await store.claimOpenTasks(run, lease, REFRESH_BATCH);
      if (ids.length > 0) {
        bell.ring();
        await holding(
          ctx,
          { lease, leases, since },
          (held) => refreshTasks(held, lease, ids),
          () => {},
        );
        bell.ring();
        continue;
      }
      const end = await store.finishRun(run, this.#options.now());
      meter.ended({ new: 0, changed: 0, deleted: end.vanished });
      if (end.superseded) meter.superseded();
      if (end.finished) {
        bell.close();
        return;
      }
      // Work is left that others hold: wait until a cursor here finishes some, or another
      // worker's may have (or its lease run out).
      meter.waiting(
        (end.held ?? []).filter((held) => !held.holder.startsWith(`${worker}/`)),
        this.#options.now(),
        this.#options.logger,
      );
      await bell.wait(Math.min(IDLE_POLL_MS, this.#options.leaseMs / 10), signal);
    }
  }
}
