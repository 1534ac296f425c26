/**
 * What a debug line says of a request: its shape, never its values (filters name users and apps).
 *
 * @module
 */

/** The shape of a request body for a debug line: field names, with array lengths; never values. */
export function describeFilters(body: object | undefined): string {
  const fields = Object.entries(body ?? {})
    .filter(([key, value]) => value !== undefined && key !== 'pageSize' && key !== 'pageToken')
    .map(([key, value]) => (Array.isArray(value) ? `${key}[${value.length}]` : key));
  return fields.length ? fields.join(', ') : 'none';
}
