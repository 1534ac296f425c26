/**
 * Where a listing's page size and token go, and the page sizes the service accepts.
 *
 * @module
 */

// The service treats 1..9 (and anything below) as 10 and anything above 100 as 100; 0 means its default.
export const MIN_PAGE_SIZE = 10;
/** The largest page the service sends. */
export const MAX_PAGE_SIZE = 100;

/**
 * The page size to send: 0 or missing leaves the service default (25); the rest is clamped to
 * 10..100, negative numbers included, as the service would read them.
 *
 * @group Task search
 */
export function clampPageSize(pageSize: number | undefined): number | undefined {
  if (!pageSize) return undefined;
  return Math.min(MAX_PAGE_SIZE, Math.max(MIN_PAGE_SIZE, pageSize));
}

/**
 * Where a listing carries its page size and token, with the rest of its request fixed: each page
 * re-sends the identical request with only the token changed.
 *
 * @group Task search
 */
export interface CursorScheme {
  /** The query and body of the request for the page after `token` (the first for undefined). */
  place(
    request: { readonly query: Record<string, string | undefined>; readonly body: object | undefined },
    pageSize: number | undefined,
    token: string | undefined,
  ): { query: Record<string, string | undefined>; body: object | undefined };
}

/** `pageSize` and `pageToken` in the JSON body: POST searches. */
export const bodyCursor: CursorScheme = {
  place: ({ query, body }, pageSize, token) => ({
    query,
    body: { ...body, pageSize, ...(token ? { pageToken: token } : {}) },
  }),
};

/** `page_size` and `page_token` in the query: GET lists. */
export const queryCursor: CursorScheme = {
  place: ({ query, body }, pageSize, token) => ({
    query: { ...query, page_size: pageSize?.toString(), page_token: token },
    body,
  }),
};
