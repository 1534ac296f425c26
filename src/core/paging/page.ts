/**
 * A page of a list or search: results in `list`, and a `nextPageToken` that is empty on the last page.
 *
 * @group Task search
 */
export interface Page<Item> {
  /**
   * Up to page-size results; `null` or missing reads as none. A `null` element is kept here as
   * sent, and skipped by item iteration (`for await`), which yields results only.
   */
  readonly list?: readonly (Item | null)[] | null | undefined;
  /** Token of the next page; empty or missing on the last. */
  readonly nextPageToken?: string | null | undefined;
}

/**
 * Why a 2xx body is not a page, if it is not: it has neither `list` nor `nextPageToken` but looks
 * like an error (`error`, `code` or `message`). Such a body must not pass for an empty last page.
 * A bare `{}` is a valid empty last page (services may omit empty fields).
 *
 * @group Task search
 */
export function notAPage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const fields = body as Record<string, unknown>;
  if ('list' in fields || 'nextPageToken' in fields) return undefined;
  const errorish = ['error', 'code', 'message'].filter((key) => key in fields);
  return errorish.length
    ? `has no list and no nextPageToken but ${errorish.join(', ')}: an error body with status 200`
    : undefined;
}
