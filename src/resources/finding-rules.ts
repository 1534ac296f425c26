import {
  type FindingTransformationRule,
  GetFindingTransformationRuleResponseSchema,
} from '../../schemas/finding-rule.ts';
import type { ClientCore, RequestOptions } from '../core/api-client.ts';
import { APIPromise } from '../core/api-promise.ts';
import { RequestValidationError } from '../core/errors/errors.ts';
import { pathParamProblem } from '../internal/url.ts';
import { kindName } from '../internal/values.ts';
import {
  type FindingRulesPreview,
  type PreviewFinding,
  type PreviewRule,
  preview,
} from './finding-rule-preview.ts';
import { pathParam } from './path-param.ts';
import { UnknownValueWarnings } from './unknown-values.ts';

/**
 * Why a 200 is no answer about a rule, or undefined: without `transformationRule` (a service omits a
 * null one), it may carry other fields, but not an error's, nor a listing's, which `null` would
 * misreport as "no such rule".
 */
function notARuleAnswer(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || 'transformationRule' in body) return undefined;
  const foreign = ['error', 'code', 'message', 'list'].filter((key) => key in body);
  return foreign.length
    ? `has no transformationRule but ${foreign.join(', ')}: an error body with status 200, or another endpoint's answer`
    : undefined;
}

/**
 * Finding transformation rules: `GET /api/v1/findings/transformation-rules/{id}`. Reach it as `client.findingRules`.
 *
 * @group Rules
 */
export class FindingRules {
  readonly #api: ClientCore;
  readonly #unknownValues: UnknownValueWarnings;

  /** @internal */
  constructor(api: ClientCore) {
    this.#api = api;
    this.#unknownValues = new UnknownValueWarnings(api.logger, 'used');
  }

  /**
   * Fetches one rule. An empty `id` is rejected before any request (it would address the whole
   * collection); the id is percent-encoded, so one containing `/` is safe.
   *
   * `.withResponse()` gives the status, headers and request ID too. A bad `id` rejects.
   *
   * @returns The rule; `null` when the service answers 200 without one.
   * @throws {NotFoundError} when there is no rule with this ID (the service answers 404, the usual
   * answer for a missing rule).
   *
   * @example
   * const rule = await client.findingRules.get('rule-id').catch((error) => {
   *   if (error instanceof NotFoundError) return null; // no such rule
   *   throw error;
   * });
   */
  get(id: string, options: RequestOptions = {}): APIPromise<FindingTransformationRule | null> {
    let path: string;
    try {
      path = `/api/v1/findings/transformation-rules/${pathParam('id', id)}`;
    } catch (error) {
      return new APIPromise(Promise.reject(error));
    }
    return this.#api
      .request({
        method: 'GET',
        path,
        schema: GetFindingTransformationRuleResponseSchema,
        what: 'finding transformation rule',
        options,
        check: notARuleAnswer,
      })
      .map((response) => response.transformationRule ?? null);
  }

  /**
   * Previews what rules will do to `finding` (see {@link previewFindingRules}); rules given by ID
   * are fetched first.
   *
   * @example
   * const { finding, trace } = await client.findingRules.preview(
   *   { severity: 'FINDING_SEVERITY_LOW', tags: {} },
   *   ['rule-1', 'rule-2'],
   * );
   */
  async preview<F extends PreviewFinding>(
    finding: F,
    rules: readonly string[] | readonly PreviewRule[],
    options: RequestOptions = {},
  ): Promise<FindingRulesPreview<F>> {
    if (!Array.isArray(rules)) {
      throw new RequestValidationError(
        `rules must be an array of rule IDs or of rules (got ${kindName(rules)}).`,
        'rules',
      );
    }
    const resolved = await Promise.all(
      rules.map(async (rule, i) => {
        if (typeof rule !== 'string') return rule;
        // Named as the caller gave it: one of the rules, not the `id` of the lookup it makes.
        const badId = pathParamProblem(`rules[${i}]`, rule);
        if (badId) throw new RequestValidationError(badId, `rules.${i}`);
        const fetched = await this.get(rule, options ?? {});
        if (!fetched)
          throw new RequestValidationError(`rules[${i}]: the service has no rule "${rule}".`, `rules.${i}`);
        return fetched;
      }),
    );
    // Rules the service sent may hold values newer than this release: only hand-written ones warn.
    return preview(
      finding,
      resolved,
      rules.some((rule) => typeof rule !== 'string') ? this.#unknownValues : undefined,
    );
  }
}
