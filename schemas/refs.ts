import * as z from 'zod/mini';
import { loose, opt } from './wire.ts';

const AppResourceRefFields = loose({
  appId: opt(z.string()),
  appResourceTypeId: opt(z.string()),
  id: opt(z.string()),
});
/**
 * Reference to an app resource.
 *
 * @group Wire model
 */
export interface AppResourceRef extends z.output<typeof AppResourceRefFields> {}
/**
 * Reference to an app resource.
 *
 * @group Wire model
 */
export const AppResourceRefSchema: z.ZodMiniType<
  AppResourceRef,
  z.input<typeof AppResourceRefFields>
> = AppResourceRefFields;

const AppEntitlementRefFields = loose({
  appId: opt(z.string()),
  id: opt(z.string()),
});
/**
 * Reference to an app entitlement.
 *
 * @group Wire model
 */
export interface AppEntitlementRef extends z.output<typeof AppEntitlementRefFields> {}
/**
 * Reference to an app entitlement.
 *
 * @group Wire model
 */
export const AppEntitlementRefSchema: z.ZodMiniType<
  AppEntitlementRef,
  z.input<typeof AppEntitlementRefFields>
> = AppEntitlementRefFields;
