/**
 * The one check of order a page cannot make itself: a page whose tasks all share one creation instant is in order
 * whatever the service's order, and a service that answers newest first gives one for its newest burst.
 *
 * @module
 */
import type { ResolvedSyncOptions } from './options.ts';
import type { PageScan } from './page-scan.ts';
import { requestRefused } from './request.ts';
import { copyTime } from './rows.ts';
import { TIME_BEGINS, windowSearch } from './window-query.ts';

/**
 * Where {@link leftOutBefore} should look from for a page of a query with more to come, or undefined when the page
 * needs no check. The first page of a query (no `token`), all of one instant past the query's start: in order
 * whatever the order. And, in a run found out of order before this process saw it (`doubted`: it may be resumed on a
 * saved token, or the service put right since), a page paged by token whose first task lies past the cursor: from
 * just past the cursor's instant, whose tasks were read.
 */
export function checkFrom(
  scan: PageScan,
  query: { readonly token: string | undefined; readonly queryFrom: number; readonly cursor: number },
  doubted: boolean,
): number | undefined {
  if (!query.token)
    return scan.inQuery === scan.atLast && scan.first > query.queryFrom + 1 ? query.queryFrom : undefined;
  if (!doubted || scan.inQuery === 0) return undefined;
  // Two past the cursor: a service's inclusive createdAfter (sent a millisecond early) then returns none of its tasks.
  const from = query.cursor > TIME_BEGINS ? query.cursor + 2 : query.cursor;
  return scan.first > from + 1 ? from : undefined;
}

/**
 * Whether the service holds a task created from `from` to just before `at` (Unix ms; among those acted on after
 * `actedAfter`, when set; leaving out those of `exclude`, as the query did): one that a page of tasks all created at
 * `at`, the first of a query from `from` (or the first past a cursor at `from`), left out, as only a service out of
 * creation order does. One request of the
 * smallest page, the window's query ending two milliseconds before `at` (its bound reaches one further, so that a
 * service's inclusive bound returns none of the page's tasks). A service that refuses it (a 4xx that refuses what
 * was asked) shows nothing: false.
 */
export async function leftOutBefore(
  options: ResolvedSyncOptions,
  query: {
    readonly from: number;
    readonly at: number;
    readonly actedAfter?: number | undefined;
    readonly exclude?: readonly string[] | undefined;
  },
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const search = windowSearch(options, query.actedAfter, signal);
  const page = await search({
    queryFrom: query.from,
    queryTo: query.at - 2,
    token: undefined,
    pageSize: 1,
    order: 'created',
    exclude: query.exclude,
  }).then(
    (answer) => answer,
    (error: unknown) => {
      if (requestRefused(error)) return undefined;
      throw error;
    },
  );
  return (page?.list ?? []).some((view) => {
    const at = copyTime(view?.task?.createdAt);
    return at !== undefined && Date.parse(at) < query.at;
  });
}
