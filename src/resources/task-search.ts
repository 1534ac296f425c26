import {
  type TaskSearchRequest,
  TaskSearchRequestSchema,
  type TaskSearchResponse,
  TaskSearchResponseSchema,
  type TaskView,
} from '../../schemas/task-search.ts';
import type { APIClient, RequestOptions } from '../core/api-client.ts';
import { bodyCursor, type PagePromise, type PagingOptions } from '../core/paging.ts';
import { parseRequest } from '../core/validation.ts';
import { linkExpanded } from './expanded.ts';

/**
 * Options of a task search: the common call options plus paging options.
 *
 * @group Task search
 */
export type TaskSearchOptions = RequestOptions & PagingOptions;

/**
 * Task search: `POST /api/v1/search/tasks`. Reach it as `client.tasks`.
 *
 * @group Task search
 */
export class TaskSearch {
  readonly #api: APIClient;

  /** @internal */
  constructor(api: APIClient) {
    this.#api = api;
  }

  /**
   * Searches access tasks. The request is validated before anything is sent (a wrong field
   * rejects the result with a {@link RequestValidationError} naming it). `pageSize` outside 10..100 is clamped as the
   * service would; keep it small with broad expand masks, as each view is large.
   *
   * The search is read-only, so it is retried like a GET, with the identical body.
   *
   * @example
   * const first = await client.tasks.search({ taskStates: ['TASK_STATE_OPEN'], pageSize: 10 });
   * for await (const view of client.tasks.search({ taskTypes: [{ grant: {} }] })) { ... }
   */
  search(
    request: TaskSearchRequest = {},
    options: TaskSearchOptions = {},
  ): PagePromise<TaskSearchResponse, TaskView> {
    return this.#api.list(() => {
      const { pageSize, pageToken, ...filters } = parseRequest(
        TaskSearchRequestSchema,
        request,
        'task search',
      );
      return {
        method: 'POST',
        path: '/api/v1/search/tasks',
        schema: TaskSearchResponseSchema,
        what: 'task search',
        cursor: bodyCursor,
        body: filters,
        pageSize,
        pageToken,
        onPage: linkExpanded,
      };
    }, options);
  }
}
