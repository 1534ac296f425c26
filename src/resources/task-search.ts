import { KNOWN_TASK_TYPE_KINDS, TASK_SEARCH_ENUM_FIELDS } from '../../schemas/request-values.ts';
import {
  type TaskSearchRequest,
  TaskSearchRequestSchema,
  type TaskSearchResponse,
  TaskSearchResponseSchema,
  type TaskView,
} from '../../schemas/task-search.ts';
import type { ClientCore, RequestOptions } from '../core/api-client.ts';
import { ConfigurationError } from '../core/errors/errors.ts';
import { bodyCursor } from '../core/paging/cursor.ts';
import type { PagePromise, PagingOptions } from '../core/paging/page-promise.ts';
import { parseRequest } from '../core/validation/validation.ts';
import { optionKeys, unknownOptionProblem } from '../internal/known-options.ts';
import { ExpandNotices, linkExpanded } from './expanded.ts';
import { UnknownValueWarnings } from './unknown-values.ts';

/**
 * Options of a task search: the common call options plus paging options.
 *
 * @group Task search
 */
export type TaskSearchOptions = RequestOptions & PagingOptions;

const SEARCH_OPTIONS = optionKeys<TaskSearchOptions>()([
  'signal',
  'timeout',
  'maxRetries',
  'headers',
  'hooks',
  'prefetch',
  'maxEmptyPages',
]);

/**
 * Task search: `POST /api/v1/search/tasks`. Reach it as `client.tasks`.
 *
 * @group Task search
 */
export class TaskSearch {
  readonly #api: ClientCore;
  readonly #unknownValues: UnknownValueWarnings;
  readonly #expandNotices: ExpandNotices;

  /** @internal */
  constructor(api: ClientCore) {
    this.#api = api;
    this.#unknownValues = new UnknownValueWarnings(api.logger);
    this.#expandNotices = new ExpandNotices(api.logger);
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
      const unknown = unknownOptionProblem('A task search', options, SEARCH_OPTIONS);
      if (unknown) throw new ConfigurationError(unknown);
      const { pageSize, pageToken, ...filters } = parseRequest(
        TaskSearchRequestSchema,
        request,
        'task search',
      );
      this.#warnAboutUnknownValues(request);
      const requested = filters.expandMask?.paths?.filter((path) => typeof path === 'string') ?? [];
      const notices = this.#expandNotices;
      return {
        method: 'POST',
        path: '/api/v1/search/tasks',
        schema: TaskSearchResponseSchema,
        what: 'task search',
        cursor: bodyCursor,
        body: filters,
        pageSize,
        pageToken,
        onPage: (page: TaskSearchResponse) => linkExpanded(page, requested, notices),
      };
    }, options);
  }

  #warnAboutUnknownValues(request: TaskSearchRequest): void {
    const fields = request as Record<string, unknown>;
    for (const [field, known] of Object.entries(TASK_SEARCH_ENUM_FIELDS)) {
      const [name = '', nested] = field.split('.');
      const raw = nested
        ? (fields[name] as Record<string, unknown> | null | undefined)?.[nested]
        : fields[name];
      const values = Object.values(known);
      for (const value of Array.isArray(raw) ? raw : [raw]) this.#unknownValues.check(field, value, values);
    }
    for (const filter of request.taskTypes ?? []) {
      // A parsed task.type (it has $kind) names a variant the service itself sent.
      if (!filter || '$kind' in filter) continue;
      for (const variant of Object.keys(filter)) {
        this.#unknownValues.check('taskTypes', variant, KNOWN_TASK_TYPE_KINDS);
      }
    }
  }
}
