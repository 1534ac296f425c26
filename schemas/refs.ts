import * as z from 'zod/mini';
import { loose, opt } from './wire.ts';

/**
 * Reference to an app resource.
 *
 * @group Wire model
 */
export const AppResourceRefSchema = loose({
  appId: opt(z.string()),
  appResourceTypeId: opt(z.string()),
  id: opt(z.string()),
});
/**
 * Reference to an app resource.
 *
 * @group Wire model
 */
export type AppResourceRef = z.output<typeof AppResourceRefSchema>;

/**
 * Reference to an app entitlement.
 *
 * @group Wire model
 */
export const AppEntitlementRefSchema = loose({
  appId: opt(z.string()),
  id: opt(z.string()),
});
/**
 * Reference to an app entitlement.
 *
 * @group Wire model
 */
export type AppEntitlementRef = z.output<typeof AppEntitlementRefSchema>;
