import type * as z from 'zod/mini';
import { PolicyStepState, PolicyType } from './enums.ts';
import { openEnum } from './open-enum.ts';
import { list, loose, map, nullishString, oneOf, opt } from './wire.ts';

const str = () => nullishString;

/**
 * A policy step kind's own payload: its state and outcome (values not listed by the service).
 *
 * @group Wire model
 */
export const PolicyStepKindSchema = loose({ state: str(), outcome: str() });

const stepKinds = {
  approval: PolicyStepKindSchema,
  provision: PolicyStepKindSchema,
  accept: PolicyStepKindSchema,
  reject: PolicyStepKindSchema,
  wait: PolicyStepKindSchema,
  form: PolicyStepKindSchema,
  action: PolicyStepKindSchema,
};

/**
 * A step still to process: exactly one of seven kinds; switch on `$kind`.
 *
 * @group Wire model
 */
export const PolicyStepSchema = oneOf({}, stepKinds);
/**
 * A step still to process; switch on `$kind`.
 *
 * @group Wire model
 */
export type PolicyStep = z.output<typeof PolicyStepSchema>;

/**
 * A step instance: common fields and exactly one of seven kinds; switch on `$kind`.
 *
 * @group Wire model
 */
export const PolicyStepInstanceSchema = oneOf(
  { id: str(), policyGenerationId: str(), state: opt(openEnum(PolicyStepState)) },
  stepKinds,
);
/**
 * A step instance; switch on `$kind`.
 *
 * @group Wire model
 */
export type PolicyStepInstance = z.output<typeof PolicyStepInstanceSchema>;

const PolicyFields = loose({
  id: str(),
  displayName: str(),
  description: str(),
  policyType: opt(openEnum(PolicyType)),
  policySteps: opt(map(loose({ steps: list(PolicyStepSchema) }))),
  createdAt: str(),
  updatedAt: str(),
});
/**
 * A policy.
 *
 * @group Wire model
 */
export interface Policy extends z.output<typeof PolicyFields> {}
/**
 * A policy.
 *
 * @group Wire model
 */
export const PolicySchema: z.ZodMiniType<Policy, z.input<typeof PolicyFields>> = PolicyFields;

const PolicyInstanceFields = loose({
  current: opt(PolicyStepInstanceSchema),
  history: list(PolicyStepInstanceSchema),
  next: list(PolicyStepSchema),
  policy: opt(PolicySchema),
});
/**
 * The policy attached to a task.
 *
 * @group Wire model
 */
export interface PolicyInstance extends z.output<typeof PolicyInstanceFields> {}
/**
 * The policy attached to a task: the current step, the completed ones and those still to come.
 *
 * @group Wire model
 */
export const PolicyInstanceSchema: z.ZodMiniType<
  PolicyInstance,
  z.input<typeof PolicyInstanceFields>
> = PolicyInstanceFields;
