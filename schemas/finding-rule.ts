import * as z from 'zod/mini';
import { FindingSeverity, FindingType } from './enums.ts';
import { openEnum } from './open-enum.ts';
import { loose, map, nullishBoolean, nullishNumber, nullishString, oneOf, opt } from './wire.ts';

const str = () => nullishString;

/**
 * Transform: set the finding's severity.
 *
 * @group Wire model
 */
export const SetSeverityTransformSchema = loose({ severity: opt(openEnum(FindingSeverity)) });
/**
 * Transform: merge these tags into the finding's tags.
 *
 * @group Wire model
 */
export const SetTagsTransformSchema = loose({ tags: opt(map(z.string())) });
/**
 * Transform: remove the tags with these keys.
 *
 * @group Wire model
 */
export const RemoveTagsTransformSchema = loose({ keys: opt(z.array(z.string())) });

/**
 * One transform of a rule: exactly one of `setSeverity`, `setTags`, `removeTags`; switch on `kind`.
 * Kinds the service adds later (e.g. `setAssignee`) parse as `kind: 'unknown'` with their data kept.
 *
 * @group Wire model
 */
export const FindingTransformSchema = oneOf(
  'kind',
  {},
  {
    setSeverity: SetSeverityTransformSchema,
    setTags: SetTagsTransformSchema,
    removeTags: RemoveTagsTransformSchema,
  },
);
/**
 * One transform of a rule; switch on `kind`.
 *
 * @group Wire model
 */
export type FindingTransform = z.output<typeof FindingTransformSchema>;

/**
 * A finding transformation rule: when `condition` (a CEL expression) matches a finding, its
 * `transforms` apply, rules in ascending `evaluationOrder`, the last writer of a field winning.
 *
 * @group Wire model
 */
export const FindingTransformationRuleSchema = loose({
  id: str(),
  appId: str(),
  templateId: str(),
  displayName: str(),
  description: str(),
  condition: str(),
  enabled: nullishBoolean,
  evaluationOrder: nullishNumber,
  findingType: opt(openEnum(FindingType)),
  transforms: opt(z.array(FindingTransformSchema)),
  createdAt: str(),
  updatedAt: str(),
});
/**
 * A finding transformation rule.
 *
 * @group Wire model
 */
export type FindingTransformationRule = z.output<typeof FindingTransformationRuleSchema>;

/**
 * The answer of the rule lookup.
 *
 * @group Wire model
 */
export const GetFindingTransformationRuleResponseSchema = loose({
  transformationRule: opt(FindingTransformationRuleSchema),
});
/**
 * The answer of the rule lookup.
 *
 * @group Wire model
 */
export type GetFindingTransformationRuleResponse = z.output<
  typeof GetFindingTransformationRuleResponseSchema
>;
