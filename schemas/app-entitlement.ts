import * as z from 'zod/mini';
import { list, loose, opt, pageSizeInput } from './wire.ts';

const AppEntitlementFields = z.looseObject({ id: opt(z.string()), appId: opt(z.string()) });
/**
 * An app entitlement.
 *
 * @group Wire model
 */
export interface AppEntitlement extends z.output<typeof AppEntitlementFields> {}
/**
 * An app entitlement. Only its identifiers are typed; every other field is kept as sent.
 *
 * @group Wire model
 */
export const AppEntitlementSchema: z.ZodMiniType<
  AppEntitlement,
  z.input<typeof AppEntitlementFields>
> = AppEntitlementFields;

const AppEntitlementViewFields = loose({ appEntitlement: opt(AppEntitlementSchema) });
/**
 * One item of the entitlement listing.
 *
 * @group Wire model
 */
export interface AppEntitlementView extends z.output<typeof AppEntitlementViewFields> {}
/**
 * One item of the entitlement listing: a wrapper around the entitlement.
 *
 * @group Wire model
 */
export const AppEntitlementViewSchema: z.ZodMiniType<
  AppEntitlementView,
  z.input<typeof AppEntitlementViewFields>
> = AppEntitlementViewFields;

const AppEntitlementListResponseFields = loose({
  list: list(AppEntitlementViewSchema),
  nextPageToken: opt(z.string()),
});
/**
 * One page of the entitlement listing.
 *
 * @group Wire model
 */
export interface AppEntitlementListResponse extends z.output<typeof AppEntitlementListResponseFields> {}
/**
 * One page of `GET /api/v1/apps/{app_id}/entitlements`.
 *
 * @group Wire model
 */
export const AppEntitlementListResponseSchema: z.ZodMiniType<
  AppEntitlementListResponse,
  z.input<typeof AppEntitlementListResponseFields>
> = AppEntitlementListResponseFields;

/**
 * Parameters of the entitlement listing.
 *
 * @group Wire model
 */
export const AppEntitlementListRequestSchema = z.strictObject({
  pageSize: z.optional(pageSizeInput),
  /** Resumes the listing at a page token saved from an earlier page's `nextPageToken`. */
  pageToken: z.optional(z.string()),
});
/**
 * Parameters of the entitlement listing.
 *
 * @group Wire model
 */
export type AppEntitlementListRequest = z.input<typeof AppEntitlementListRequestSchema>;
