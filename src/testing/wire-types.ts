import type { z } from 'zod/mini';
import type { AppEntitlementSchema } from '../../schemas/app-entitlement.ts';
import type { FindingTransformationRuleSchema } from '../../schemas/finding-rule.ts';
import type { TaskSchema } from '../../schemas/task.ts';

/**
 * A task as the service sends it (wire form: no `kind` discriminators).
 *
 * @group Testing kit
 */
export type WireTask = z.input<typeof TaskSchema>;
/**
 * A finding transformation rule as the service sends it.
 *
 * @group Testing kit
 */
export type WireRule = z.input<typeof FindingTransformationRuleSchema>;
/**
 * An app entitlement as the service sends it.
 *
 * @group Testing kit
 */
export type WireEntitlement = z.input<typeof AppEntitlementSchema>;

/**
 * The task type variants the builders make.
 *
 * @group Testing kit
 */
export type FakeTaskVariant = 'grant' | 'revoke' | 'certify' | 'offboarding' | 'action' | 'finding';
