/**
 * The service's request ID in an answer's headers (`x-request-id`, else `request-id`), to quote
 * to its support; undefined when it sent none.
 */
export function requestIdOf(headers: Headers): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}
