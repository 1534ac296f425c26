/**
 * The search every request of the sync starts from, and which of the service's answers refuse
 * what it asked.
 *
 * @module
 */
import { TaskSearchSortBy } from '../../../schemas/enums.ts';
import type { TaskSearchRequest } from '../../../schemas/task-search.ts';
import { APIError } from '../../core/errors/status-errors.ts';
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

/**
 * Whether `error` refuses what a request asked (a saved page token, a sort): any 4xx but 401, 403,
 * 408 and 429, which say something of the credentials or the moment, not of the request (services
 * answer an expired token with 400, 404, 410 or 422).
 */
export function requestRefused(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status < 400 || error.status >= 500) return false;
  return ![401, 403, 408, 429].includes(error.status);
}
