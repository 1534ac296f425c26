import * as z from 'zod/mini';
import { FindingSeverity, FindingType } from './enums.ts';
import { openEnum } from './open-enum.ts';
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

const SetSeverityTransformFields = loose({ severity: opt(openEnum(FindingSeverity)) });
/**
 * The `setSeverity` transform kind.
 *
 * @group Schemas
 */
export interface SetSeverityTransform extends z.output<typeof SetSeverityTransformFields> {}
/**
 * Transform: set the finding's severity.
 *
 * @group Schemas
 */
export const SetSeverityTransformSchema: z.ZodMiniType<
  SetSeverityTransform,
  z.input<typeof SetSeverityTransformFields>
> = SetSeverityTransformFields;
const SetTagsTransformFields = loose({ tags: opt(map(z.unknown())) });
/**
 * The `setTags` transform kind.
 *
 * @group Schemas
 */
export interface SetTagsTransform extends z.output<typeof SetTagsTransformFields> {}
/**
 * Transform: merge these tags into the finding's tags. Values are usually strings; any JSON value is kept.
 *
 * @group Schemas
 */
export const SetTagsTransformSchema: z.ZodMiniType<
  SetTagsTransform,
  z.input<typeof SetTagsTransformFields>
> = SetTagsTransformFields;
const RemoveTagsTransformFields = loose({ keys: nullishStrings });
/**
 * The `removeTags` transform kind.
 *
 * @group Schemas
 */
export interface RemoveTagsTransform extends z.output<typeof RemoveTagsTransformFields> {}
/**
 * Transform: remove the tags with these keys.
 *
 * @group Schemas
 */
export const RemoveTagsTransformSchema: z.ZodMiniType<
  RemoveTagsTransform,
  z.input<typeof RemoveTagsTransformFields>
> = RemoveTagsTransformFields;

/**
 * One transform of a rule: exactly one of `setSeverity`, `setTags`, `removeTags`; switch on `$kind`.
 * Kinds the service adds later (e.g. `setAssignee`) parse as `$kind: 'unknown'` with their data kept.
 *
 * @group Schemas
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
 * @group Schemas
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
  findingType: opt(openEnum(FindingType)),
  transforms: list(FindingTransformSchema),
  createdAt: str(),
  updatedAt: str(),
});
/**
 * A finding transformation rule.
 *
 * @group Schemas
 */
export interface FindingTransformationRule extends z.output<typeof FindingTransformationRuleFields> {}
/**
 * A finding transformation rule: when `condition` (a CEL expression) matches a finding, its
 * `transforms` apply, rules in ascending `evaluationOrder`, the last writer of a field winning.
 *
 * @group Schemas
 */
export const FindingTransformationRuleSchema: z.ZodMiniType<
  FindingTransformationRule,
  z.input<typeof FindingTransformationRuleFields>
> = FindingTransformationRuleFields;

/**
 * The answer of the rule lookup.
 *
 * @group Schemas
 */
export const GetFindingTransformationRuleResponseSchema = loose({
  transformationRule: opt(FindingTransformationRuleSchema),
});
/**
 * The answer of the rule lookup.
 *
 * @group Schemas
 */
export type GetFindingTransformationRuleResponse = z.output<
  typeof GetFindingTransformationRuleResponseSchema
>;
