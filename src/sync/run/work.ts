/**
 * A cursor's work on a window of creation time: paging it, each page committed with the window's
 * progress, so that a process killed at any instant loses nothing.
 *
 * @module
 */

import { AbortError, ResponseTooLargeError } from '../../core/errors/errors.ts';
import { DEFAULT_MAX_EMPTY_PAGES, waitBeforePage } from '../../core/paging/empty-pages.ts';
import { PageChain } from '../../core/paging/page-chain.ts';
import type { SyncLease, SyncRun, SyncWindow, WindowOrder } from '../store.ts';
import type { PageCommit, PageCommitResult } from '../store-rows.ts';
import { refused, unsupported } from './acted-probe.ts';
import { BurstEnd, SORT_OF } from './burst-end.ts';
import type { RunContext } from './context.ts';
import { InstantRead } from './instant-read.ts';
import { leftOutBefore } from './order-probe.ts';
import { createdAt, scanPage } from './page-scan.ts';
import { requestRefused } from './request.ts';
import { expandedRows, taskRows } from './rows.ts';
import { TOKEN_RESTARTS, tokensGaveOut } from './token-restarts.ts';
import { type Query, windowSearch } from './window-query.ts';

// Runs told that their service refused includeActedAfter mid-pass; by run, as each piece of work has its own context.
const toldRefused = new WeakSet<SyncRun>();

/**
 * Pages `window` to its end under `lease`, committing each page with the window's progress; stops
 * early when another holder took the window over (this one's lease ran out).
 *
 * Keyset, not offsets: after each page that moved on in creation time, the next request starts
 * again from that page's last creation time, so a task purged (or closed out of a filter) between
 * two pages shifts nothing. Page tokens are followed only in a burst (a page all of one creation
 * instant), which a keyset cannot page past; a token the service no longer takes restarts the
 * query from the last committed creation time. A burst that two cursors page from both ends is
 * paged by ticket ID, by tokens, until they meet ({@link BurstEnd}).
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
  if (window.unordered) ctx.doubted.seen = true;
  let { cursor, token, queryFrom, queryTo } = window;
  let to = window.to;
  let order: WindowOrder = window.order ?? 'created';
  let burst = order === 'created' ? undefined : new BurstEnd(order, window.edge);
  // The other end's edge, as the last commit read it.
  let otherEdge: string | undefined;
  // A token is bound to its request, page size included: the query keeps the size it began with.
  let pageSize = ctx.pageSize.current;
  let chain = new PageChain(DEFAULT_MAX_EMPTY_PAGES, token);
  // How often the query started again after its token was refused since the window last got further (its cursor,
  // a burst's end's edge, or the tasks read at its cursor's instant, left out: `exclude`); that often, not the token.
  let restarts = { at: '', times: 0 };
  const instant = new InstantRead();
  const reached = () => `${cursor} ${burst?.edge ?? ''} ${instant.size}`;
  let exclude: readonly string[] | undefined;
  // In a run found out of order, a token saved by another cursor says nothing of what lies before its pages (a page of
  // one instant looks in order whatever the order): its query moves no cursor, to its last page or a restart.
  let trusted = !(ctx.doubted.seen && token && !burst);
  const restart = (from = cursor, end = to, size = ctx.pageSize.current, skip?: readonly string[]) => {
    token = undefined;
    queryFrom = from;
    queryTo = end;
    pageSize = size;
    chain = new PageChain(DEFAULT_MAX_EMPTY_PAGES);
    exclude = skip;
    trusted = true;
    if (!skip) burst?.restart(); // leaving out what it read, a burst's end reads on in order
  };
  // The window's order changed under this cursor (its burst paired, or back to one end): its query
  // starts again in that order, and the page asked for ahead (in the old one) is not taken.
  const reorder = (next: WindowOrder, end: number) => {
    ahead?.then(() => meter.fetched(1)).catch(() => {});
    ahead = undefined;
    order = next;
    burst = next === 'created' ? undefined : new BurstEnd(next, undefined);
    to = end;
    restart(cursor, to, ctx.pageSize.current);
  };
  const search = windowSearch(options, window.actedAfter, signal);
  // Every commit says what this process knows of the run's order, and learns what another worker found.
  const commit = async (page: PageCommit): Promise<PageCommitResult> => {
    const result = await store.commitPage(
      run,
      window,
      ctx.keyset.on ? page : { ...page, unordered: true },
      lease,
    );
    if (result.unordered) ctx.doubted.seen = true;
    return result;
  };
  // A commit that moves nothing: the window ends, or its order changes, where it stands.
  const still = (end: Partial<PageCommit>) =>
    commit({
      tasks: [],
      expanded: [],
      cursor,
      moved: false,
      queryFrom,
      queryTo,
      token: undefined,
      exhausted: false,
      syncedAt: options.now(),
      order,
      ...end,
    });
  // The next page, asked for while this one commits (it depends on this page and the window's end as last read):
  // a cursor then waits on the service alone, not on the service and its store in turn. Two pages in memory at most.
  let ahead: ReturnType<typeof search> | undefined;
  for (;;) {
    let page: Awaited<ReturnType<typeof search>>;
    try {
      page = await (ahead ?? search({ queryFrom, queryTo, token, pageSize, order, exclude }));
      // A page asked for ahead may have come in after the stop: a stopped run commits nothing more.
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      if (signal.aborted) throw new AbortError('The sync was stopped.', { cause: signal.reason });
      // A page too large to read: asked again, smaller, from the last committed creation time.
      if (error instanceof ResponseTooLargeError && ctx.pageSize.halve(pageSize, error)) {
        restart();
        continue;
      }
      // A service that does not take excludeIds: the query starts again reading what it read.
      if (exclude && !token && requestRefused(error)) {
        instant.refuse();
        restart();
        continue;
      }
      // A saved token may have expired, or be bound to a request the service no longer takes:
      // restart the query from the last committed creation time.
      if (token && requestRefused(error)) {
        restarts = { at: reached(), times: restarts.at === reached() ? restarts.times + 1 : 1 };
        if (restarts.times <= TOKEN_RESTARTS) {
          restart(cursor, to, ctx.pageSize.current, instant.exclude(cursor));
          continue;
        }
        throw tokensGaveOut(error, {
          times: restarts.times,
          cursor,
          read: instant.size,
          ordered: ctx.keyset.on,
        });
      }
      // A service that does not take the ticket order (a burst's end refused at its first page): the
      // window's burst is paged from one end again, by creation time, and no more are paired.
      if (order !== 'created' && !token && requestRefused(error)) {
        ctx.ticketOrder.off(`refused sortBy ${SORT_OF[order]} (${(error as Error).message})`);
        const back = await still({ orderRefused: true });
        if (back.lost || back.done || back.order === undefined) {
          meter.window(back.lost ? 'lost' : 'done', window);
          return;
        }
        reorder(back.order, back.to);
        continue;
      }
      // A service that stopped taking the bound since the run began (upgraded, rolled back): the window ends, said
      // once, rather than fail every resumed run; the run no longer counts as one that saw the tasks acted on.
      if (window.actedAfter !== undefined && refused(error)) {
        if (!toldRefused.has(run)) unsupported(options, `refused the bound (${(error as Error).message})`);
        toldRefused.add(run);
        const ended = await still({ exhausted: true, actedCut: true });
        meter.window(ended.lost ? 'lost' : 'done', window);
        return;
      }
      throw error;
    } finally {
      ahead = undefined;
    }
    const tasks = taskRows(page.list, ctx.refuse);
    // A burst's end stays at its instant, and its order is ticket IDs: it checks those instead.
    const inQuery = (task: { readonly createdAt?: string | null }) => {
      const at = Date.parse(task.createdAt ?? '');
      return at >= queryFrom - 1 && at <= queryTo + 1;
    };
    const unpair = burst !== undefined && !burst.alone && !burst.read(page.list ?? [], inQuery);
    const scan = burst
      ? { last: cursor, atLast: 0, inQuery: 0, sorted: true, before: false }
      : scanPage(tasks, { queryFrom, queryTo }, cursor);
    // A keyset needs pages in creation order that keep to `createdAfter`: a service that sorts
    // otherwise, or ignores the bound, is paged by its tokens from here on (said once).
    if (!scan.sorted) ctx.keyset.off('answers a page out of creation order');
    else if (scan.before) ctx.keyset.off('answers tasks created before the createdAfter asked for');
    const { token: next, error: badChain } = chain.follow(page);
    if (badChain) throw badChain;
    // The first page of a query, with more to come, all of one instant past its start: in order whatever the order.
    if (
      !burst &&
      ctx.keyset.on &&
      !token &&
      next &&
      scan.inQuery === scan.atLast &&
      scan.last > queryFrom + 1
    ) {
      meter.fetched(1);
      const probe = { from: queryFrom, at: scan.last, to: queryTo, actedAfter: window.actedAfter, exclude };
      if (await leftOutBefore(options, probe, signal, () => meter.fetched(1)))
        ctx.keyset.off('leaves tasks created before a page off it (it answers out of creation order)');
    }
    // Out of creation order, no task's creation time says every task before it was read: the cursor stays where
    // order last held (a query restarted or resumed starts there again), and the window ends when its tokens run out.
    const ordered = burst !== undefined || (ctx.keyset.on && trusted);
    const last = ordered ? scan.last : cursor;
    const { atLast } = scan;
    // A query made before a split reaches past the window's end as it is now: what lies past it is the other
    // half's (the store writes only the window's range too). The cursor past the end still ends the window.
    const past = (at: number) => at > to + 1 && at <= queryTo + 1;
    const own = scan.last > to + 1 ? tasks.filter((row) => !past(createdAt(row))) : tasks;
    const moved = last > cursor;
    // Past a page that moved on, the next request starts from its last creation time (a keyset),
    // unless that instant holds more than one task of the page: a burst may go on, which the token
    // pages through (a keyset would fetch its start again).
    const keyset = ctx.keyset.on && moved && next !== undefined && atLast === 1;
    // A burst's end that met its other end needs no next page. Near it, the next page is not asked for ahead (the
    // other end's page under way may meet this one), and the descending end leaves the ascending one the last page.
    const paired = burst?.alone === false;
    const met = paired && burst?.met(otherEdge) === true;
    const near = paired && burst?.near(otherEdge, 3) === true;
    const handOver = paired && !met && order === 'reverseTicket' && burst?.near(otherEdge, 2) === true;
    // Not while the SDK's backoff after empty pages is owed, nor past the window's end as last read
    // (a split since may end it sooner: the page asked for ahead then ends it).
    const following: Query | undefined =
      next === undefined || last > to || chain.delayMs > 0 || met || near
        ? undefined
        : keyset
          ? { queryFrom: last, queryTo: to, token: undefined, pageSize: ctx.pageSize.current, order }
          : { queryFrom, queryTo, token: next, pageSize, order, exclude };
    if (following) {
      ahead = search(following);
      // Awaited at the next turn of the loop, unless the commit fails or ends the window first.
      ahead.catch(() => {});
    }
    const result = await commit({
      tasks: own,
      expanded: expandedRows(page.expanded),
      cursor: last,
      moved,
      // A window paged out of order holds no burst: nothing tells where it stands, so no cursor splits or pairs it.
      inBurst: ordered && (!moved || (!keyset && next !== undefined && atLast > 1)),
      queryFrom: keyset ? last : queryFrom,
      queryTo,
      token: keyset ? undefined : next,
      exhausted: next === undefined,
      syncedAt: options.now(),
      order,
      ...(burst?.edge !== undefined ? { edge: burst.edge } : {}),
      ...(unpair ? { unpair } : {}),
      ...(handOver ? { handOver } : {}),
      ...(met ? { met } : {}),
    });
    otherEdge = result.otherEdge;
    // The other end's edge as this commit read it may be one this query read: they met, and the
    // window is done now rather than a page later.
    const meeting =
      !result.lost &&
      !result.done &&
      result.order === undefined &&
      burst?.alone === false &&
      burst.met(otherEdge);
    const final = meeting ? await still({ met: true }) : undefined;
    if (!result.lost && result.order !== undefined && result.order !== order) {
      // Paired meanwhile: nothing of the page was written (the query in ticket order fetches it again).
      meter.fetched(1);
      ctx.bell.ring();
      reorder(result.order, result.to);
      continue;
    }
    if (result.lost) meter.fetched(1);
    else meter.page(result.counts, own.length, window, last, result.to);
    const ended = final ?? result;
    if (ended.lost || ended.done) {
      // The page asked for ahead is not committed, but if it came in, the service served it: counted.
      ahead?.then(() => meter.fetched(1)).catch(() => {});
      meter.window(ended.lost ? 'lost' : 'done', window);
      return;
    }
    // What a page showed (a window's density, a burst) may make a split worth it: idle cursors look.
    ctx.bell.ring();
    instant.add(own, last);
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
