import { hostname } from 'node:os';
import { SingleBar } from 'cli-progress';
import type { TaskExpandPath } from '../../schemas/enums.ts';
import { IdGovClient } from '../client.ts';
import { APIError } from '../core/errors/status-errors.ts';
import { createLogger } from '../core/logger.ts';
import { isRetryableStatus } from '../core/transport/retry.ts';
import { wait } from '../internal/wait.ts';
import { isFileMoved } from '../stores/file-identity.ts';
import { StoreError } from '../stores/store-error.ts';
import type { ChangeFeedStart } from '../sync/changes.ts';
import type { SyncProgress, SyncWaitingEvent } from '../sync/run/events.ts';
import type { SyncFilter } from '../sync/run/options.ts';
import { patientStore } from '../sync/run/patient-store.ts';
import { TaskSync } from '../sync/run/task-sync.ts';
import { isCopyHeld } from '../sync/sqlite/holder.ts';
import { SqliteSyncStore } from '../sync/sqlite/store.ts';
import type { SyncStore } from '../sync/store.ts';
import { startTelemetry } from './telemetry.ts';
import { EXIT, isSetupError, leftUnfinished, stoppedBySignals } from './usage.ts';

/** What `idgov sync` takes: a SQLite file (`db`) or a PostgreSQL URL (`postgres`, with a table prefix). */
export interface SyncCommandOptions {
  readonly db?: string | undefined;
  readonly postgres?: string | undefined;
  readonly table?: string | undefined;
  readonly concurrency: number;
  /** Tasks a page. */
  readonly pageSize: number;
  readonly full: boolean;
  /** The lease of a window, in seconds. */
  readonly lease: number;
  /** The client's `maxRetries`. */
  readonly retries: number;
  /** Which tasks to copy (`--task-type`, `--app`). */
  readonly filter?: SyncFilter | undefined;
  /** Expand paths whose objects go into the copy's expanded table (`--expand`). */
  readonly expand?: readonly TaskExpandPath[] | undefined;
  /** Whether the change feed records the first copy (`--change-feed`). */
  readonly changeFeed?: ChangeFeedStart | undefined;
  /** Runs again and again, this many seconds apart (start to start), until SIGINT or SIGTERM (`--watch`). */
  readonly watch?: number | undefined;
}

/** The store the options name; a PostgreSQL copy's tables are created first if missing. */
async function storeOf(
  options: SyncCommandOptions,
  signal: AbortSignal,
): Promise<{ store: SyncStore; where: string }> {
  if (options.postgres !== undefined) {
    const { PostgresSyncStore } = await import('../sync/postgres/store.ts');
    const store = new PostgresSyncStore({
      connectionString: options.postgres,
      table: options.table,
      maxConnections: options.concurrency + 2,
      changeFeed: options.changeFeed,
    });
    try {
      // Waited out as the run's own store calls are: a worker started beside its database (a
      // container started first) finds it still starting, or out of connections for a moment.
      await patientStore(store, createLogger(), signal).migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    return { store, where: `the PostgreSQL copy ${store.table}_tasks` };
  }
  // The signal: a stop does not wait out another process's lock on the file, but on the store's own
  // thread. One cursor's next page is on its way while a page commits: its commits need no thread
  // of their own (a stop then waits up to the busy timeout, 5 s, for a lock another holds).
  const store = new SqliteSyncStore({
    path: options.db ?? '',
    changeFeed: options.changeFeed,
    signal,
    thread: options.concurrency > 1,
  });
  return { store, where: options.db ?? '' };
}

// An estimate past a day is no estimate (a resumed run's rate, measured over its first pages).
const minutes = (ms: number | undefined) =>
  ms === undefined || !(ms <= 86_400_000)
    ? '?'
    : ms < 60_000
      ? `${Math.ceil(ms / 1000)}s`
      : `${Math.round(ms / 60_000)}m`;

/** The time left as the display says it: nothing left is "finishing" (the run's end), not "1s". */
export const timeLeft = (p: SyncProgress) => (p.tasksLeft === 0 ? 'finishing' : `${minutes(p.etaMs)} left`);

/** The share of the run's tasks done, by the estimate of those left; undefined while there is none. */
const doneShare = (p: SyncProgress) =>
  p.tasksLeft === undefined ? undefined : p.tasks / Math.max(1, p.tasks + p.tasksLeft);

/** A progress bar on a terminal; a plain line every few seconds otherwise (a log, a CI job). */
function progressReporter(stream: NodeJS.WriteStream): {
  update(p: SyncProgress): void;
  waiting(w: SyncWaitingEvent): void;
  stop(): void;
} {
  if (stream.isTTY) {
    const bar = new SingleBar({
      stream,
      // `{left}`, not `{eta}`: cli-progress fills `{eta}` itself, in bare seconds.
      format: ' {bar} {percentage}% | {pages} pages | {tasks} tasks | {rate}/s | {left}',
      hideCursor: true,
    });
    bar.start(1000, 0, { pages: 0, tasks: 0, rate: 0, left: '? left' });
    return {
      update: (p) => {
        const share = doneShare(p);
        const payload = {
          pages: p.pages,
          tasks: p.tasks,
          rate: Math.round(p.tasksPerSecond),
          left: timeLeft(p),
        };
        if (share === undefined) bar.update(payload);
        else bar.update(Math.round(share * 1000), payload);
      },
      waiting: (w) => bar.update({ left: waitingFor(w) }),
      stop: () => bar.stop(),
    };
  }
  let last = Number.NEGATIVE_INFINITY;
  return {
    update: (p) => {
      if (performance.now() - last < 2_000) return;
      last = performance.now();
      const share = doneShare(p);
      const estimate =
        share === undefined ? 'tasks left unknown' : `about ${Math.round(share * 100)}% of the tasks`;
      stream.write(
        `sync: ${p.pages} pages, ${p.tasks} tasks, ${estimate}, ${Math.round(p.tasksPerSecond)} tasks/s, ${timeLeft(p)}\n`,
      );
    },
    waiting: (w) => stream.write(`sync: ${waitingFor(w)}\n`),
    stop: () => {},
  };
}

/** What a worker waiting on another's lease says of it. */
function waitingFor({ holder, runsOutInMs }: SyncWaitingEvent): string {
  return `waiting for a lease held by ${holder} (runs out in ${Math.ceil(runsOutInMs / 1000)}s unless renewed)`;
}

/**
 * `idgov sync`: one run of the task sync into a SQLite or PostgreSQL copy, with progress on stderr.
 * SIGINT and SIGTERM stop it with every committed page kept (exit 130); running the same command
 * again resumes. On PostgreSQL, the same command on several machines shares the run. With `watch`,
 * runs follow one another that many seconds apart, each saying its summary, until SIGINT or
 * SIGTERM end it with exit 0 (what a long-running container is stopped with); a failed run is said
 * and the next one resumes it, but for a setup to fix, which ends it.
 */
export async function syncCommand(options: SyncCommandOptions): Promise<number> {
  // Heard from the start: a container stopped while the copy's tables are made must not die of it.
  return stoppedBySignals(
    (signal, signalled, ended, failing) => runs(options, signal, signalled, ended, failing),
    (signal) => {
      process.stderr.write(`${leftUnfinished(signal)}; run the same command again to resume.\n`);
      return options.watch === undefined ? EXIT.interrupted : EXIT.done;
    },
  );
}

/**
 * The runs of `idgov sync` until done, failed or `signal` aborts; `signalled` says by which signal,
 * and `ended` is told the exit code, or `failing` the error, before the store and telemetry are let go.
 */
async function runs(
  options: SyncCommandOptions,
  signal: AbortSignal,
  signalled: () => NodeJS.Signals | undefined,
  ended: (code: number) => number,
  failing: <E>(error: E) => E,
): Promise<number> {
  // IDGOV_BASE_URL and the credentials, from the environment; a batch job rides out more refusals.
  const client = new IdGovClient({ maxRetries: options.retries });
  let opened: Awaited<ReturnType<typeof storeOf>> | undefined;
  while (!opened) {
    const started = performance.now();
    try {
      opened = await storeOf(options, signal);
    } catch (error) {
      // A watch started beside a database down for longer than a store call waits: said, and
      // tried again at the next run, as a run that fails is.
      const down = error instanceof StoreError && error.transient;
      if (!signal.aborted && options.watch !== undefined && down) {
        process.stderr.write(
          `Run failed: ${error.message.replace(/^@idgov\/sdk: /, '')} The next run tries again.\n`,
        );
        const pause = Math.max(0, started + options.watch * 1000 - performance.now());
        if (await wait(pause, { signal })) continue;
      }
      // Stopped while a database not yet up was waited for: a stop, not a failure.
      if (!signal.aborted) throw error;
      process.stderr.write(
        `Stopped by ${signalled() ?? 'a signal'} before the copy's tables were made; nothing was done.\n`,
      );
      return options.watch === undefined ? EXIT.interrupted : EXIT.done;
    }
  }
  const { store, where } = opened;
  const sync = new TaskSync({
    client,
    store,
    concurrency: options.concurrency,
    pageSize: options.pageSize,
    filter: options.filter,
    expand: options.expand,
    leaseMs: options.lease * 1000,
    // What other workers say while they wait for this one.
    workerName: `${hostname()} pid ${process.pid}`,
  });
  // Spans and metrics to the collector the OTEL_* environment names, if it names one.
  const telemetry = await startTelemetry((message) => process.stderr.write(`idgov: ${message}\n`));
  const stopTelemetry = telemetry
    ? [
        telemetry.otel.instrumentClient(client, telemetry.options),
        telemetry.otel.instrumentSync(sync, telemetry.options),
      ]
    : [];
  // Until the next run of a watch, `--watch` seconds from the start of the last; false once stopped.
  const pauseBeforeNext = async (started: number) => {
    const pause = Math.max(0, started + (options.watch ?? 0) * 1000 - performance.now());
    process.stderr.write(`Next run at ${new Date(Date.now() + pause).toISOString()}.\n`);
    if (await wait(pause, { signal })) return true;
    process.stderr.write(
      `Stopped by ${signalled() ?? 'a signal'} between runs; the copy is as the last run left it.\n`,
    );
    return false;
  };
  let progress = progressReporter(process.stderr);
  sync.hooks.on('progress', (p) => progress.update(p));
  sync.hooks.on('waiting', (w) => progress.waiting(w));
  try {
    for (let full = options.full; ; full = false) {
      // Runs are spaced by the monotonic clock: a wall clock put back an hour must not hold the
      // next run an hour, nor one put forward skip the wait.
      const started = performance.now();
      let summary: Awaited<ReturnType<typeof sync.run>>;
      try {
        summary = await sync.run({ signal, full });
      } catch (error) {
        progress.stop();
        // A setup to fix (a refused credential, a bad option) ends it, as it would every run. A run
        // that fails otherwise (the service or the database down for longer than a run waits) is
        // said with what it kept: a watch, a long-running container's, runs the next one, which
        // resumes it.
        // But another sync holding a SQLite copy passes: a watch tries again at its next run.
        if (isSetupError(error) && !(options.watch !== undefined && isCopyHeld(error))) throw failing(error);
        // Nor does a copy file deleted or replaced under the store: every later run would fail alike.
        if (isFileMoved(error)) throw failing(error);
        // A refusal another run meets again (a 403, a 404, a bad request) is said as it is.
        if (options.watch === undefined && error instanceof APIError && !isRetryableStatus(error.status))
          throw failing(error);
        const message = String((error as Error)?.message ?? error).replace(/^@idgov\/sdk: /, '');
        const next =
          options.watch !== undefined
            ? 'the next run resumes it'
            : full
              ? 'run it again without --full to resume it (--full would end this run and begin another)'
              : 'run the same command again to resume it';
        process.stderr.write(`Run failed: ${message} What it committed is kept; ${next}.\n`);
        if (options.watch === undefined) return ended(EXIT.failed);
        if (!(await pauseBeforeNext(started))) return ended(EXIT.done);
        progress = progressReporter(process.stderr);
        continue;
      }
      progress.stop();
      const what = `${summary.kind} run${summary.resumed ? ' (resumed)' : ''}: ${summary.pages} pages, ${summary.tasksNew} new, ${summary.tasksChanged} changed, ${summary.tasksDeleted} deleted`;
      if (summary.superseded && !signalled()) {
        // Run again with --full, it would end that full run in turn.
        process.stderr.write(
          `Ended by another worker's full run (--full), which ended this ${summary.kind} run unfinished; ${what}, all committed to ${where}. That full run makes the copy current: run ${full ? 'this command without --full' : 'the same command'} to join it.\n`,
        );
        if (options.watch === undefined) return ended(EXIT.done);
        if (!(await pauseBeforeNext(started))) return ended(EXIT.done);
        progress = progressReporter(process.stderr);
        continue;
      }
      if (!summary.complete) {
        process.stderr.write(
          `Stopped by ${signalled() ?? 'a signal'}; ${what}, all committed to ${where}. ${full && summary.kind === 'full' && summary.windows > 0 ? 'Run it again without --full to resume (--full would end this run and begin another).' : 'Run the same command again to resume.'}\n`,
        );
        return ended(options.watch === undefined ? EXIT.interrupted : EXIT.done);
      }
      process.stderr.write(`Done: ${what}, in ${(summary.durationMs / 1000).toFixed(1)} s.\n`);
      if (options.watch === undefined) return ended(EXIT.done);
      if (!(await pauseBeforeNext(started))) return ended(EXIT.done);
      progress = progressReporter(process.stderr);
    }
  } finally {
    progress.stop();
    await sync.close();
    for (const stopOne of stopTelemetry) stopOne();
    await telemetry?.shutdown();
  }
}
