/**
 * The one check of order a page cannot make itself: a page whose tasks all share one creation instant is in order
 * whatever the service's order, and a service that answers newest first gives one for its newest burst.
 *
 * @module
 */
import { isoTime } from '../../internal/time.ts';
import type { ResolvedSyncOptions } from './options.ts';
import { requestRefused, syncRequest } from './request.ts';
import { copyTime } from './rows.ts';
import { TIME_BEGINS } from './window-query.ts';

/**
 * Whether the service holds a task created from `from` to just before `at` (Unix ms; among those acted on after
 * `actedAfter`, when set; leaving out those of `exclude`, as the query did): one that a page of tasks all
 * created at `at`, the first of a query from `from`, left out, as only a service out of creation order does. One
 * request of the smallest page. A service that refuses it (a 4xx that refuses what was asked) shows nothing: false.
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
  const page = await options.client.tasks
    .search(
      {
        ...syncRequest(options),
        pageSize: 1,
        expandMask: undefined,
        ...(query.from > TIME_BEGINS ? { createdAfter: isoTime(query.from - 1) } : {}),
        // Before the instant by a millisecond, so that a service's inclusive bound returns none of its tasks.
        createdBefore: isoTime(query.at - 1),
        ...(query.actedAfter !== undefined ? { includeActedAfter: isoTime(query.actedAfter) } : {}),
        ...(query.exclude ? { excludeIds: [...query.exclude] } : {}),
      },
      { signal },
    )
    .then(
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
