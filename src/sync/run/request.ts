/**
 * The search every request of the sync starts from.
 *
 * @module
 */
import { TaskSearchSortBy } from '../../../schemas/enums.ts';
import type { TaskSearchRequest } from '../../../schemas/task-search.ts';
import type { ResolvedSyncOptions } from './options.ts';

/** What every request of the sync asks: creation order, deleted tasks too, the filter, the expansions. */
export function syncRequest(options: ResolvedSyncOptions): TaskSearchRequest {
  const { filter, expand, pageSize } = options;
  return {
    ...filter,
    sortBy: TaskSearchSortBy.CREATED_AT,
    includeDeleted: true,
    pageSize,
    ...(expand.length > 0 ? { expandMask: { paths: [...expand] } } : {}),
  } as TaskSearchRequest;
}
