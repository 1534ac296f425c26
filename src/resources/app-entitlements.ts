import {
  type AppEntitlementListRequest,
  AppEntitlementListRequestSchema,
  type AppEntitlementListResponse,
  AppEntitlementListResponseSchema,
  type AppEntitlementView,
} from '../../schemas/app-entitlement.ts';
import type { ClientCore, RequestOptions } from '../core/api-client.ts';
import { queryCursor } from '../core/paging/cursor.ts';
import type { PagePromise, PagingOptions } from '../core/paging/page-promise.ts';
import { parseRequest } from '../core/validation/validation.ts';
import { pathParam } from './path-param.ts';

/**
 * App entitlements: `GET /api/v1/apps/{app_id}/entitlements`. Reach it as `client.appEntitlements`.
 *
 * @group Client
 */
export class AppEntitlements {
  readonly #api: ClientCore;

  /** @internal */
  constructor(api: ClientCore) {
    this.#api = api;
  }

  /**
   * Lists an app's entitlements, page by page (`page_size`, `page_token` in the query). Pass
   * `pageToken` (a saved `nextPageToken`) to resume where an earlier listing stopped.
   *
   * @example
   * for await (const { appEntitlement } of client.appEntitlements.list('app-1')) console.log(appEntitlement?.id);
   */
  list(
    appId: string,
    params: AppEntitlementListRequest = {},
    options: RequestOptions & PagingOptions = {},
  ): PagePromise<AppEntitlementListResponse, AppEntitlementView> {
    return this.#api.list(() => {
      const { pageSize, pageToken } = parseRequest(
        AppEntitlementListRequestSchema,
        params,
        'app entitlement list',
      );
      return {
        method: 'GET',
        path: `/api/v1/apps/${pathParam('appId', appId)}/entitlements`,
        schema: AppEntitlementListResponseSchema,
        what: 'app entitlement list',
        cursor: queryCursor,
        pageSize,
        pageToken,
      };
    }, options);
  }
}
