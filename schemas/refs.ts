import * as z from 'zod/mini';
import { loose, opt } from './wire.ts';

/** Reference to an app resource. */
export const AppResourceRefSchema = loose({
  appId: opt(z.string()),
  appResourceTypeId: opt(z.string()),
  id: opt(z.string()),
});
/** Reference to an app resource. */
export type AppResourceRef = z.output<typeof AppResourceRefSchema>;

/** Reference to an app entitlement (FACTS.md). */
export const AppEntitlementRefSchema = loose({
  appId: opt(z.string()),
  id: opt(z.string()),
});
/** Reference to an app entitlement. */
export type AppEntitlementRef = z.output<typeof AppEntitlementRefSchema>;
