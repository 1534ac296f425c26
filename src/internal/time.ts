/**
 * Unix ms as ISO 8601 UTC with milliseconds (`2026-11-27T06:10:40.000Z`): the form every time the
 * SDK sends or stores takes, so that text order is time order.
 */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
