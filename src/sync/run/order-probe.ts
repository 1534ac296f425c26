/**
 * The one check of order a page cannot make itself: a page whose tasks all share one creation instant is in order
 * whatever the service's order, and a service that answers newest first gives one for its newest burst.
 *
 * @module
 */
import type { ResolvedSyncOptions } from './options.ts';
import { requestRefused } from './request.ts';
import { copyTime } from './rows.ts';
import { windowSearch } from './window-query.ts';

/**
 * Whether the service holds a task created from `from` to just before `at` (Unix ms; among those acted on after
 * `actedAfter`, when set; leaving out those of `exclude`, as the query did): one that a page of tasks all created at
 * `at`, the first of a query from `from`, left out, as only a service out of creation order does. One request of the
 * smallest page the service serves (10; the client would raise a smaller one, with a warning), the window's query
 * ending two milliseconds before `at` (its bound reaches one further, so that a service's inclusive bound returns
 * none of the page's tasks). A service that refuses it (a 4xx that refuses what was asked) shows nothing: false.
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
    pageSize: 10,
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
