import * as z from 'zod/mini';
import { loose, opt, pageSizeInput } from './wire.ts';

/**
 * An app entitlement. Only its identifiers are typed; every other field is kept as sent.
 *
 * @group Schemas
 */
export const AppEntitlementSchema = z.looseObject({ id: opt(z.string()), appId: opt(z.string()) });
/**
 * An app entitlement.
 *
 * @group Schemas
 */
export type AppEntitlement = z.output<typeof AppEntitlementSchema>;

/**
 * One item of the entitlement listing: a wrapper around the entitlement.
 *
 * @group Schemas
 */
export const AppEntitlementViewSchema = loose({ appEntitlement: opt(AppEntitlementSchema) });
/**
 * One item of the entitlement listing.
 *
 * @group Schemas
 */
export type AppEntitlementView = z.output<typeof AppEntitlementViewSchema>;

/**
 * One page of `GET /api/v1/apps/{app_id}/entitlements`.
 *
 * @group Schemas
 */
export const AppEntitlementListResponseSchema = loose({
  list: opt(z.array(AppEntitlementViewSchema)),
  nextPageToken: opt(z.string()),
});
/**
 * One page of the entitlement listing.
 *
 * @group Schemas
 */
export type AppEntitlementListResponse = z.output<typeof AppEntitlementListResponseSchema>;

/**
 * Parameters of the entitlement listing.
 *
 * @group Schemas
 */
export const AppEntitlementListRequestSchema = z.strictObject({
  pageSize: z.optional(pageSizeInput),
  /** Resumes the listing at a page token saved from an earlier page's `nextPageToken`. */
  pageToken: z.optional(z.string()),
});
/**
 * Parameters of the entitlement listing.
 *
 * @group Schemas
 */
export type AppEntitlementListRequest = z.input<typeof AppEntitlementListRequestSchema>;
