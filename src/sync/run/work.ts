/**
 * A run's two kinds of work, each a cursor's for a while: paging a window of creation time, and
 * refreshing a batch of the tasks the copy holds as open. Each commits with its progress, so a
 * process killed at any instant loses nothing.
 *
 * @module
 */

import type { TaskView } from '../../../schemas/task-search.ts';
import { AbortError, ResponseTooLargeError } from '../../core/errors/errors.ts';
import { APIError } from '../../core/errors/status-errors.ts';
import { DEFAULT_MAX_EMPTY_PAGES, waitBeforePage } from '../../core/paging/empty-pages.ts';
import { PageChain } from '../../core/paging/page-chain.ts';
import { isoTime } from '../../internal/time.ts';
import type { SyncLease, SyncRun, SyncStore, SyncWindow, TaskRow } from '../store.ts';
import { refused, unsupported } from './acted-probe.ts';
import type { Doorbell } from './doorbell.ts';
import type { KeysetPaging } from './keyset.ts';
import type { ResolvedSyncOptions } from './options.ts';
import type { PageSize } from './page-size.ts';
import type { SyncProgressMeter } from './progress.ts';
import { syncRequest } from './request.ts';
import { expandedRows, taskRows } from './rows.ts';

/** Open tasks a cursor claims at once to refresh. */
export const REFRESH_BATCH = 100;

// Runs told that their service refused includeActedAfter mid-pass; by run, as each piece of work has its own context.
const toldRefused = new WeakSet<SyncRun>();

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
  /** Tasks a request asks for, halved for the rest of the run when an answer is too large. */
  readonly pageSize: PageSize;
  /** Told of each task whose ID the copy cannot hold: it is left out, never marked vanished. */
  readonly refuse: (id: string) => void;
  /** Whether windows page by creation time (keyset) or, for a service that cannot be paged so, by tokens. */
  readonly keyset: KeysetPaging;
}

/**
 * Whether `error`, the answer to a request that carried a saved page token, says the token is gone:
 * any 4xx but 401, 403, 408 and 429, which say something of the credentials or the moment, not of
 * the token (services answer an expired one with 400, 404, 410 or 422).
 */
function tokenGone(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status < 400 || error.status >= 500) return false;
  return ![401, 403, 408, 429].includes(error.status);
}

/**
 * Pages `window` to its end under `lease`, committing each page with the window's progress; stops
 * early when another holder took the window over (this one's lease ran out).
 *
 * Keyset, not offsets: after each page that moved on in creation time, the next request starts
 * again from that page's last creation time, so a task purged (or closed out of a filter) between
 * two pages shifts nothing. Page tokens are followed only in a burst (a page all of one creation
 * instant), which a keyset cannot page past; a token the service no longer takes restarts the
 * query from the last committed creation time.
 */
export async function pageWindow(ctx: RunContext, window: SyncWindow, lease: SyncLease): Promise<void> {
  // However the window is left (done, lost, failed, stopped), the page asked for ahead is aborted.
  const left = new AbortController();
  try {
    await pageUntilLeft({ ...ctx, signal: AbortSignal.any([ctx.signal, left.signal]) }, window, lease);
  } finally {
    left.abort();
  }
}

async function pageUntilLeft(ctx: RunContext, window: SyncWindow, lease: SyncLease): Promise<void> {
  const { options, store, run, meter, signal } = ctx;
  let { cursor, token, queryFrom, queryTo } = window;
  let to = window.to;
  // A token is bound to its request, page size included: the query keeps the size it began with.
  let pageSize = ctx.pageSize.current;
  let chain = new PageChain(DEFAULT_MAX_EMPTY_PAGES, token);
  // Where the query last started again after its token was refused: refused again there, it is not the token.
  let restartedAt: number | undefined;
  const restart = (from = cursor, end = to, size = ctx.pageSize.current) => {
    token = undefined;
    queryFrom = from;
    queryTo = end;
    pageSize = size;
    chain = new PageChain(DEFAULT_MAX_EMPTY_PAGES);
  };
  // Both bounds a millisecond wide of the window, so that neither an inclusive nor an exclusive
  // bound of the service loses a task at an edge; a task fetched twice is upserted once. Sent at
  // once (a search is sent when first awaited), as a plain promise.
  const search = (query: Query) =>
    options.client.tasks
      .search(
        {
          ...syncRequest(options),
          pageSize: query.pageSize,
          createdAfter: isoTime(query.queryFrom - 1),
          createdBefore: isoTime(query.queryTo + 1),
          ...(window.actedAfter !== undefined ? { includeActedAfter: isoTime(window.actedAfter) } : {}),
          ...(query.token ? { pageToken: query.token } : {}),
        },
        { signal },
      )
      .then((page) => page);
  // The next page, asked for while this one commits (it depends on this page and the window's end
  // as last read, not on the commit): a cursor then waits on the service alone, not on the service
  // and its store in turn. Two pages a cursor are in memory at most.
  let ahead: ReturnType<typeof search> | undefined;
  for (;;) {
    let page: Awaited<ReturnType<typeof search>>;
    try {
      page = await (ahead ?? search({ queryFrom, queryTo, token, pageSize }));
      // A page asked for ahead may have come in after the stop: a stopped run commits nothing more.
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      if (signal.aborted) throw new AbortError('The sync was stopped.', { cause: signal.reason });
      // A page too large to read: asked again, smaller, from the last committed creation time.
      if (error instanceof ResponseTooLargeError && ctx.pageSize.halve(pageSize, error)) {
        restart();
        continue;
      }
      // A saved token may have expired, or be bound to a request the service no longer takes:
      // restart the query from the last committed creation time.
      if (token && tokenGone(error) && restartedAt !== cursor) {
        restart();
        restartedAt = cursor;
        continue;
      }
      // A service that stopped taking the bound since the run began (it was upgraded, or rolled
      // back): the window ends, said once, rather than fail every resumed run; and the run no longer
      // counts as one that saw the tasks acted on, so that the next run looks back to the last that did.
      if (window.actedAfter !== undefined && refused(error)) {
        if (!toldRefused.has(run)) unsupported(options, `refused the bound (${(error as Error).message})`);
        toldRefused.add(run);
        const end = { tasks: [], expanded: [], cursor, moved: false, queryFrom, queryTo, token: undefined };
        const ended = await store.commitPage(
          run,
          window,
          { ...end, exhausted: true, actedCut: true, syncedAt: options.now() },
          lease,
        );
        meter.window(ended.lost ? 'lost' : 'done', window);
        return;
      }
      throw error;
    } finally {
      ahead = undefined;
    }
    const tasks = taskRows(page.list, ctx.refuse);
    // Only tasks inside the query move its cursor: one the service put on the page from outside it
    // (a hostile or broken answer) is kept, but must not end the window before its pages do.
    let last = cursor;
    let atLast = 0;
    let sorted = true;
    let before = false;
    let previous = Number.NEGATIVE_INFINITY;
    for (const row of tasks) {
      const at = createdAt(row);
      if (at < queryFrom - 1) before = true;
      if (!(at >= queryFrom - 1 && at <= queryTo + 1)) continue;
      if (at < previous) sorted = false;
      previous = at;
      if (at < last) continue;
      atLast = at === last ? atLast + 1 : 1;
      last = at;
    }
    // A keyset needs pages in creation order that keep to `createdAfter`: a service that sorts
    // otherwise, or ignores the bound, is paged by its tokens from here on (said once).
    if (!sorted) ctx.keyset.off('answers a page out of creation order');
    else if (before) ctx.keyset.off('answers tasks created before the createdAfter asked for');
    const { token: next, error: badChain } = chain.follow(page);
    if (badChain) throw badChain;
    // A query made before a split reaches past the window's end as it is now: what lies past it is
    // the other half's to write (written here too, this older copy of a task could overwrite one
    // fetched later). The cursor past the end still ends the window.
    const past = (at: number) => at > to + 1 && at <= queryTo + 1;
    const own = last > to + 1 ? tasks.filter((row) => !past(createdAt(row))) : tasks;
    const moved = last > cursor;
    // Past a page that moved on, the next request starts from its last creation time (a keyset),
    // unless that instant holds more than one task of the page: a burst may go on, which the token
    // pages through (a keyset would fetch its start again).
    const keyset = ctx.keyset.on && moved && next !== undefined && atLast === 1;
    // Not while the SDK's backoff after empty pages is owed, nor past the window's end as last read
    // (a split since may end it sooner: the page asked for ahead then ends it).
    const following: Query | undefined =
      next === undefined || last > to || chain.delayMs > 0
        ? undefined
        : keyset
          ? { queryFrom: last, queryTo: to, token: undefined, pageSize: ctx.pageSize.current }
          : { queryFrom, queryTo, token: next, pageSize };
    if (following) {
      ahead = search(following);
      // Awaited at the next turn of the loop, unless the commit fails or ends the window first.
      ahead.catch(() => {});
    }
    const result = await store.commitPage(
      run,
      window,
      {
        tasks: own,
        expanded: expandedRows(page.expanded),
        cursor: last,
        moved,
        inBurst: !moved || (!keyset && next !== undefined && atLast > 1),
        queryFrom: keyset ? last : queryFrom,
        queryTo,
        token: keyset ? undefined : next,
        exhausted: next === undefined,
        syncedAt: options.now(),
      },
      lease,
    );
    if (result.lost) meter.fetched(1);
    else meter.page(result.counts, own.length, window, last, result.to);
    if (result.lost || result.done) {
      // The page asked for ahead is not committed, but if it came in, the service served it: counted.
      ahead?.then(() => meter.fetched(1)).catch(() => {});
      meter.window(result.lost ? 'lost' : 'done', window);
      return;
    }
    // What a page showed (a window's density, a burst) may make a split worth it: idle cursors look.
    ctx.bell.ring();
    cursor = last;
    to = result.to;
    if (keyset) {
      restart(last, following?.queryTo, following?.pageSize);
    } else {
      token = next;
      if (chain.delayMs > 0) await waitBeforePage(chain.delayMs, signal);
    }
  }
}

/** A task row's creation time (Unix ms), NaN when it has none. */
const createdAt = (row: TaskRow) => (row.createdAt ? Date.parse(row.createdAt) : Number.NaN);

/** Where a window's query stands: its bounds, its page size and its next page's token. */
interface Query {
  readonly queryFrom: number;
  readonly queryTo: number;
  readonly token: string | undefined;
  readonly pageSize: number;
}

/**
 * Refreshes `ids`, a batch of the tasks the copy holds as open claimed under `lease`, committed in
 * one transaction.
 */
export async function refreshTasks(ctx: RunContext, lease: SyncLease, ids: readonly string[]): Promise<void> {
  const { options, store, run, meter, signal } = ctx;
  let pages = 0;
  // By refs, a page at a time: halved, as the windows' pages are, when an answer is too large.
  const byRefs = async (refs: readonly string[]) => {
    const views: TaskView[] = [];
    for (let rest = refs; rest.length > 0; ) {
      const size = ctx.pageSize.current;
      const batch = rest.slice(0, size);
      try {
        const found = await options.client.tasks
          .search({ ...syncRequest(options), refs: batch.map((id) => ({ id })), pageSize: size }, { signal })
          .toArray();
        views.push(...found);
        pages += Math.ceil(found.length / size) || 1;
        rest = rest.slice(size);
      } catch (error) {
        if (!(error instanceof ResponseTooLargeError && ctx.pageSize.halve(size, error))) throw error;
      }
    }
    return views;
  };
  const views = await byRefs(ids);
  let tasks = taskRows(views, ctx.refuse);
  let missing = absent(ids, tasks);
  // A task missing from the answer is marked vanished (deleted): asked again first, so that one
  // glitch of the service (a null in the list, a task left out) does not delete a task from the copy.
  if (missing.length > 0) {
    const again = await byRefs(missing);
    // One row an ID, should the service answer with a task twice.
    tasks = taskRows([...views, ...again], ctx.refuse);
    missing = absent(missing, tasks);
  }
  const counts = await store.commitRefresh(run, { tasks, vanished: missing, syncedAt: options.now() }, lease);
  meter.refreshed(counts, pages, tasks.length);
}

/** The IDs of `ids` no row of `rows` holds. */
function absent(ids: readonly string[], rows: readonly { readonly id: string }[]): string[] {
  const returned = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !returned.has(id));
}
