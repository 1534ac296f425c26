import * as z from 'zod/mini';
import { FindingSeverity, FindingType } from './enums.ts';
import { requestEnum } from './open-enum.ts';
import {
  list,
  loose,
  map,
  nullishBoolean,
  nullishNumber,
  nullishString,
  nullishStrings,
  oneOf,
  opt,
} from './wire.ts';

const str = () => nullishString;

const SetSeverityTransformFields = loose({ severity: opt(requestEnum(FindingSeverity)) });
/**
 * The `setSeverity` transform kind.
 *
 * @group Wire model
 */
export interface SetSeverityTransform extends z.output<typeof SetSeverityTransformFields> {}
/**
 * Transform: set the finding's severity.
 *
 * @group Wire model
 */
export const SetSeverityTransformSchema: z.ZodMiniType<
  SetSeverityTransform,
  z.input<typeof SetSeverityTransformFields>
> = SetSeverityTransformFields;
const SetTagsTransformFields = loose({ tags: opt(map(z.unknown())) });
/**
 * The `setTags` transform kind.
 *
 * @group Wire model
 */
export interface SetTagsTransform extends z.output<typeof SetTagsTransformFields> {}
/**
 * Transform: merge these tags into the finding's tags. Values are usually strings; any JSON value is kept.
 *
 * @group Wire model
 */
export const SetTagsTransformSchema: z.ZodMiniType<
  SetTagsTransform,
  z.input<typeof SetTagsTransformFields>
> = SetTagsTransformFields;
const RemoveTagsTransformFields = loose({ keys: nullishStrings });
/**
 * The `removeTags` transform kind.
 *
 * @group Wire model
 */
export interface RemoveTagsTransform extends z.output<typeof RemoveTagsTransformFields> {}
/**
 * Transform: remove the tags with these keys.
 *
 * @group Wire model
 */
export const RemoveTagsTransformSchema: z.ZodMiniType<
  RemoveTagsTransform,
  z.input<typeof RemoveTagsTransformFields>
> = RemoveTagsTransformFields;

/**
 * One transform of a rule: exactly one of `setSeverity`, `setTags`, `removeTags`; switch on `$kind`.
 * Kinds the service adds later (e.g. `setAssignee`) parse as `$kind: 'unknown'` with their data kept.
 *
 * @group Wire model
 */
export const FindingTransformSchema = oneOf(
  {},
  {
    setSeverity: SetSeverityTransformSchema,
    setTags: SetTagsTransformSchema,
    removeTags: RemoveTagsTransformSchema,
  },
);
/**
 * One transform of a rule; switch on `$kind`.
 *
 * @group Wire model
 */
export type FindingTransform = z.output<typeof FindingTransformSchema>;

const FindingTransformationRuleFields = loose({
  id: str(),
  appId: str(),
  templateId: str(),
  displayName: str(),
  description: str(),
  condition: str(),
  enabled: nullishBoolean,
  evaluationOrder: nullishNumber,
  findingType: opt(requestEnum(FindingType)),
  transforms: list(FindingTransformSchema),
  createdAt: str(),
  updatedAt: str(),
});
/**
 * A finding transformation rule.
 *
 * @group Wire model
 */
export interface FindingTransformationRule extends z.output<typeof FindingTransformationRuleFields> {}
/**
 * A finding transformation rule: when `condition` (a CEL expression) matches a finding, its
 * `transforms` apply, rules in ascending `evaluationOrder`, the last writer of a field winning.
 *
 * @group Wire model
 */
export const FindingTransformationRuleSchema: z.ZodMiniType<
  FindingTransformationRule,
  z.input<typeof FindingTransformationRuleFields>
> = FindingTransformationRuleFields;

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
