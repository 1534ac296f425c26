import {
  type FindingTransformationRule,
  GetFindingTransformationRuleResponseSchema,
} from '../../schemas/finding-rule.ts';
import type { APIClient, RequestOptions } from '../core/api-client.ts';
import { pathParam } from '../core/url.ts';

/** Finding transformation rules: `GET /api/v1/findings/transformation-rules/{id}`. Reach it as `client.findingRules`. */
export class FindingRules {
  readonly #api: APIClient;

  /** @internal */
  constructor(api: APIClient) {
    this.#api = api;
  }

  /**
   * Fetches one rule. An empty `id` is rejected before any request (it would address the whole
   * collection); the id is percent-encoded, so one containing `/` is safe.
   *
   * @returns The rule, or `null` when the service answers without one.
   * @throws {NotFoundError} when the service answers 404.
   */
  async get(id: string, options: RequestOptions = {}): Promise<FindingTransformationRule | null> {
    const response = await this.#api.request({
      method: 'GET',
      path: `/api/v1/findings/transformation-rules/${pathParam('id', id)}`,
      schema: GetFindingTransformationRuleResponseSchema,
      what: 'finding transformation rule',
      options,
    });
    return response.transformationRule ?? null;
  }
}
