import * as z from 'zod/mini';
import {
  ExternalRefSource,
  InsightRecommendation,
  TaskActionType,
  TaskOrigin,
  TaskProcessingType,
  TaskState,
} from './enums.ts';
import { FormSchema } from './form.ts';
import { openEnum } from './open-enum.ts';
import { PolicyInstanceSchema } from './policy.ts';
import { AppEntitlementRefSchema } from './refs.ts';
import { TaskTypeSchema } from './task-type.ts';
import {
  list,
  loose,
  map,
  nullishBoolean,
  nullishNumber,
  nullishString,
  nullishStrings,
  opt,
} from './wire.ts';

const str = () => nullishString;
const strings = () => nullishStrings;

const ExternalRefFields = loose({
  externalRefSource: opt(openEnum(ExternalRefSource)),
  name: str(),
  url: str(),
});
/**
 * A reference to an external system.
 *
 * @group Wire model
 */
export interface ExternalRef extends z.output<typeof ExternalRefFields> {}
/**
 * A reference to an external system (read-only, currently unused by the service).
 *
 * @group Wire model
 */
export const ExternalRefSchema: z.ZodMiniType<
  ExternalRef,
  z.input<typeof ExternalRefFields>
> = ExternalRefFields;

const TaskRevocationTargetFields = loose({ entitlementRef: opt(AppEntitlementRefSchema) });
/**
 * An ancestor entitlement also revoked when a revoke task is approved.
 *
 * @group Wire model
 */
export interface TaskRevocationTarget extends z.output<typeof TaskRevocationTargetFields> {}
/**
 * An ancestor entitlement also revoked when a revoke task is approved.
 *
 * @group Wire model
 */
export const TaskRevocationTargetSchema: z.ZodMiniType<
  TaskRevocationTarget,
  z.input<typeof TaskRevocationTargetFields>
> = TaskRevocationTargetFields;

const AnnotationFields = z.looseObject({ '@type': str() });
/**
 * A typed annotation.
 *
 * @group Wire model
 */
export interface Annotation extends z.output<typeof AnnotationFields> {}
/**
 * A typed annotation: `@type` names its serialized type; its other fields are kept as sent.
 *
 * @group Wire model
 */
export const AnnotationSchema: z.ZodMiniType<Annotation, z.input<typeof AnnotationFields>> = AnnotationFields;

const TaskFields = loose({
  id: str(),
  numericId: str(),
  displayName: str(),
  description: str(),
  state: opt(openEnum(TaskState)),
  processing: opt(openEnum(TaskProcessingType)),
  type: opt(TaskTypeSchema),
  origin: opt(openEnum(TaskOrigin)),
  actions: list(openEnum(TaskActionType)),
  analysisId: str(),
  annotations: list(AnnotationSchema),
  approverIds: strings(),
  stepApproverIds: strings(),
  commentCount: nullishNumber,
  createdAt: str(),
  updatedAt: str(),
  deletedAt: str(),
  createdByUserId: str(),
  userId: str(),
  data: opt(map(z.unknown())),
  emergencyAccess: nullishBoolean,
  externalRefs: list(ExternalRefSchema),
  form: opt(FormSchema),
  insightIds: strings(),
  recommendation: opt(openEnum(InsightRecommendation)),
  policy: opt(PolicyInstanceSchema),
  policyGenerationId: str(),
  revocationTargets: list(TaskRevocationTargetSchema),
});
/**
 * An access task.
 *
 * @group Wire model
 */
export interface Task extends z.output<typeof TaskFields> {}
/**
 * An access task. `numericId` is an int64 carried as a string (never parse it to a number);
 * date-times are RFC 3339 strings and durations `"3600s"` strings, as the service sends them.
 *
 * @group Wire model
 */
export const TaskSchema: z.ZodMiniType<Task, z.input<typeof TaskFields>> = TaskFields;
