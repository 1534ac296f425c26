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
 *
 * A task found may have entered the query after its page was read (acted on since, for a window of tasks acted
 * on): with `to`, the query's end, its first page is asked again (`again` is told of that request), and the service
 * is out of order only if that page too leaves every task before `at` out. A service in creation order now puts
 * the task found first; one out of order answers its page of `at` again.
 */
export async function leftOutBefore(
  options: ResolvedSyncOptions,
  query: {
    readonly from: number;
    readonly at: number;
    readonly to?: number | undefined;
    readonly actedAfter?: number | undefined;
    readonly exclude?: readonly string[] | undefined;
  },
  signal: AbortSignal | undefined,
  again: () => void = () => {},
): Promise<boolean> {
  const search = windowSearch(options, query.actedAfter, signal);
  const smallestPage = (queryTo: number) =>
    search({
      queryFrom: query.from,
      queryTo,
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
  const holdsBefore = (page: Awaited<ReturnType<typeof smallestPage>>) =>
    (page?.list ?? []).some((view) => {
      const at = copyTime(view?.task?.createdAt);
      return at !== undefined && Date.parse(at) < query.at;
    });
  if (!holdsBefore(await smallestPage(query.at - 2))) return false;
  if (query.to === undefined) return true;
  again();
  return !holdsBefore(await smallestPage(query.to));
}
