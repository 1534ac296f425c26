/**
 * A window's query: where it stands, and the search request it sends.
 *
 * @module
 */
import { isoTime } from '../../internal/time.ts';
import type { WindowOrder } from '../store.ts';
import { SORT_OF } from './burst-end.ts';
import type { ResolvedSyncOptions } from './options.ts';
import { syncRequest } from './request.ts';

/**
 * The earliest creation time a copy holds (year 1): where a full run starts when it cannot know its tenant's first
 * task. A query from there asks for no `createdAfter`, which a service may take for a time not set.
 */
export const TIME_BEGINS = Date.parse('0001-01-01T00:00:00.000Z');

/** Where a window's query stands: its bounds, its page size, its next page's token and its order. */
export interface Query {
  readonly queryFrom: number;
  readonly queryTo: number;
  readonly token: string | undefined;
  readonly pageSize: number;
  readonly order: WindowOrder;
  /** Tasks of the cursor's instant it leaves out, read before its token was refused. */
  readonly exclude?: readonly string[] | undefined;
}

/**
 * The search of a window's queries (of the tasks acted on after `actedAfter`, when set), each sent at once (a
 * search is sent when first awaited). Both bounds lie a millisecond wide of the query, so that neither an inclusive
 * nor an exclusive bound of the service loses a task at an edge (the store writes it once).
 */
export function windowSearch(
  options: ResolvedSyncOptions,
  actedAfter: number | undefined,
  signal: AbortSignal | undefined,
) {
  return (query: Query) =>
    options.client.tasks
      .search(
        {
          ...syncRequest(options),
          sortBy: SORT_OF[query.order],
          pageSize: query.pageSize,
          ...(query.queryFrom > TIME_BEGINS ? { createdAfter: isoTime(query.queryFrom - 1) } : {}),
          createdBefore: isoTime(query.queryTo + 1),
          ...(actedAfter !== undefined ? { includeActedAfter: isoTime(actedAfter) } : {}),
          ...(query.token ? { pageToken: query.token } : {}),
          ...(query.exclude ? { excludeIds: [...query.exclude] } : {}),
        },
        { signal },
      )
      .then((page) => page);
}
