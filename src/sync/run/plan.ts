/**
 * The windows a run begins with: a full run's stretches of creation time from the tenant's first
 * task, one a cursor, and an incremental run's new tasks and tasks acted on since.
 *
 * @module
 */
import { ResponseValidationError } from '../../core/errors/errors.ts';
import { isoTime } from '../../internal/time.ts';
import type { CopyState, SyncWindowPlan } from '../store.ts';
import { appliesActedAfter } from './acted-probe.ts';
import type { Fallback } from './fallback.ts';
import type { ResolvedSyncOptions } from './options.ts';
import { leftOutBefore } from './order-probe.ts';
import { syncRequest } from './request.ts';
import { copyTime } from './rows.ts';
import { CLOCK_GRAIN_MS, ServiceClock } from './service-clock.ts';
import { TIME_BEGINS } from './window-query.ts';

// Tasks looked at for a creation time before the service's answers are taken to carry none.
const EARLIEST_LOOKS = 1_000;

/**
 * The creation time of the tenant's first task (of the filter), or undefined when there is none.
 * Paged like any listing (through empty pages, which a service may answer first): a run that took a
 * first empty page for an empty tenant would copy nothing, and a full one would mark every task vanished.
 * A first page out of creation order (a service that ignores `sortBy`) tells nothing of the first task:
 * `keyset` is turned off, and the run starts at the earliest time a copy holds.
 */
export async function earliestTask(
  options: ResolvedSyncOptions,
  signal: AbortSignal | undefined,
  clock: ServiceClock,
  keyset: Fallback,
): Promise<number | undefined> {
  let looked = 0;
  const search = options.client.tasks.search(
    { ...syncRequest(options), pageSize: 10, expandMask: undefined },
    { signal },
  );
  for await (const { data, response } of search.pagesWithResponse()) {
    clock.observe(response.headers);
    // The earliest of the first page with creation times, not its first: a service may not keep
    // creation order within a page.
    let earliest: number | undefined;
    let sorted = true;
    let oneInstant = true;
    for (const view of data.list ?? []) {
      const at = copyTime(view?.task?.createdAt);
      if (at === undefined) {
        looked += 1;
        continue;
      }
      const ms = Date.parse(at);
      if (earliest !== undefined && ms < earliest) sorted = false;
      if (earliest !== undefined && ms !== earliest) oneInstant = false;
      earliest = Math.min(earliest ?? Number.POSITIVE_INFINITY, ms);
    }
    if (!sorted) {
      keyset.off('answers its first page out of creation order');
      return TIME_BEGINS;
    }
    if (earliest === undefined) {
      if (looked >= EARLIEST_LOOKS) break;
      continue;
    }
    // A first page all of one instant is in order whatever the service's order: it is the first only if no task
    // was created before it.
    if (
      oneInstant &&
      data.nextPageToken &&
      (await leftOutBefore(options, { from: TIME_BEGINS, at: earliest }, signal))
    ) {
      keyset.off('leaves tasks created before its first page off it (it answers out of creation order)');
      return TIME_BEGINS;
    }
    return earliest;
  }
  if (looked === 0) return undefined;
  throw new ResponseValidationError(
    `the service's first ${looked} task(s) in creation order carry no createdAt (or one before the year 1 or after 9999): the sync pages by creation time and cannot copy them. Check the base URL, or ask the service's owner.`,
    'list.task.createdAt',
    [],
    '',
  );
}

/**
 * The first windows of a full run: `from..to` in `count` equal stretches of time, sharing their
 * ends (none when `from` is undefined: the tenant has no task).
 */
export function firstWindows(from: number | undefined, to: number, count: number): SyncWindowPlan[] {
  if (from === undefined) return [];
  const span = Math.max(0, to - from);
  const parts = Math.max(1, Math.min(count, span));
  return Array.from({ length: parts }, (_, i) => ({
    from: from + Math.floor((span * i) / parts),
    to: i === parts - 1 ? to : from + Math.floor((span * (i + 1)) / parts),
  }));
}

/**
 * The first windows of an incremental run, and its start: one window of the tasks created since
 * the last run started (less `overlapMs`, for clocks and commits late to show), and, when the copy
 * holds older tasks and `applies()` says the service applies `includeActedAfter`, one of those
 * acted on since the last run that saw such tasks started (less the overlap). One each, split only
 * where their first pages find tasks: their stretches of time are mostly empty. The run starts at
 * `now()`, the service's time, asked after the probe, whose answer may have told it. The reach back
 * is the overlap and a second more: the service's clock is told to the second.
 *
 * No windows, but `aheadOf` (the start it cannot reach from), when the service's `Date` says a run
 * the copy's reach comes from started further after this one than the overlap covers: the
 * service's clock ran ahead then, or was put back since, and the tasks it stamped in between lie
 * before that start, where no incremental run would look. A start the newest creation time gave
 * (no `Date`) may lie behind the last run's: no task is newer, and the reach stops at it.
 */
export async function incrementalWindows(
  copy: CopyState,
  overlap: number,
  applies: () => Promise<boolean>,
  now: () => Promise<{ readonly at: number; readonly byDate: boolean }>,
): Promise<
  | { readonly startedAt: number; readonly windows: SyncWindowPlan[] }
  | { readonly startedAt: number; readonly windows?: undefined; readonly aheadOf: number }
> {
  // The last run's end may be up to a second past the service's clock when it paged there.
  const overlapMs = overlap + CLOCK_GRAIN_MS;
  const last = copy.lastRunStartedAt;
  const earliest = copy.earliestCreatedAt;
  const probed =
    last !== undefined && earliest !== undefined && earliest < last - overlapMs && (await applies());
  const { at: startedAt, byDate } = await now();
  const reach = Math.max(last ?? Number.NEGATIVE_INFINITY, copy.actedSeenSince ?? Number.NEGATIVE_INFINITY);
  if (byDate && reach > startedAt + overlapMs) return { startedAt, aheadOf: reach };
  // Reached back from, never from past this run's start.
  const from = (at: number) => Math.min(at, startedAt) - overlapMs;
  const since = last === undefined ? startedAt - overlapMs : from(last);
  const windows: SyncWindowPlan[] = [{ from: since, to: startedAt }];
  if (probed && earliest !== undefined && earliest < since)
    windows.push({ from: earliest, to: since, actedAfter: from(copy.actedSeenSince ?? (last as number)) });
  return { startedAt, windows };
}

/**
 * A new run's kind, start and first windows: a full run's, or an incremental one's unless the copy's
 * reach lies after the service's time now (then a full one, said). `probed` is told of each page
 * the probe of `includeActedAfter` fetched.
 */
export async function planRun(
  options: ResolvedSyncOptions,
  copy: CopyState,
  full: boolean,
  signal: AbortSignal | undefined,
  probed: () => void,
  keyset: Fallback,
): Promise<{ full: boolean; startedAt: number; windows: readonly SyncWindowPlan[] }> {
  const clock = new ServiceClock(options);
  if (!full) {
    const planned = await incrementalWindows(
      copy,
      options.overlapMs,
      () => appliesActedAfter(options, signal, clock, probed),
      async () => ({ at: await clock.now(signal), byDate: clock.toldByDate }),
    );
    if (planned.windows) return { full, ...planned };
    options.logger.warn(
      `task sync: the copy's last run began at ${isoTime(planned.aheadOf)} by the service's clock, more than the overlap after its time now (${isoTime(planned.startedAt)}): its clock ran ahead then, or was put back since. This run is a full one, so that no task it stamped in between is missed.`,
    );
  }
  const earliest = await earliestTask(options, signal, clock, keyset);
  const startedAt = await clock.now(signal);
  // Paged by tokens, windows are neither split nor ended early: one pages it all.
  const count = keyset.on ? options.concurrency : 1;
  return { full: true, startedAt, windows: firstWindows(earliest, startedAt, count) };
}
