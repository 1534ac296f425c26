import * as z from 'zod/mini';
import { PolicyStepState, PolicyType } from './enums.ts';
import { openEnum } from './open-enum.ts';
import { loose, map, nullishString, oneOf, opt } from './wire.ts';

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
 * A step still to process: exactly one of seven kinds; switch on `kind`.
 *
 * @group Wire model
 */
export const PolicyStepSchema = oneOf('kind', {}, stepKinds);
/**
 * A step still to process; switch on `kind`.
 *
 * @group Wire model
 */
export type PolicyStep = z.output<typeof PolicyStepSchema>;

/**
 * A step instance: common fields and exactly one of seven kinds; switch on `kind`.
 *
 * @group Wire model
 */
export const PolicyStepInstanceSchema = oneOf(
  'kind',
  { id: str(), policyGenerationId: str(), state: opt(openEnum(PolicyStepState)) },
  stepKinds,
);
/**
 * A step instance; switch on `kind`.
 *
 * @group Wire model
 */
export type PolicyStepInstance = z.output<typeof PolicyStepInstanceSchema>;

/**
 * A policy.
 *
 * @group Wire model
 */
export const PolicySchema = loose({
  id: str(),
  displayName: str(),
  description: str(),
  policyType: opt(openEnum(PolicyType)),
  policySteps: opt(map(loose({ steps: opt(z.array(PolicyStepSchema)) }))),
  createdAt: str(),
  updatedAt: str(),
});
/**
 * A policy.
 *
 * @group Wire model
 */
export type Policy = z.output<typeof PolicySchema>;

/**
 * The policy attached to a task: the current step, the completed ones and those still to come.
 *
 * @group Wire model
 */
export const PolicyInstanceSchema = loose({
  current: opt(PolicyStepInstanceSchema),
  history: opt(z.array(PolicyStepInstanceSchema)),
  next: opt(z.array(PolicyStepSchema)),
  policy: opt(PolicySchema),
});
/**
 * The policy attached to a task.
 *
 * @group Wire model
 */
export type PolicyInstance = z.output<typeof PolicyInstanceSchema>;
