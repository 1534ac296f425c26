/**
 * A sync's filter as the copy keeps it: canonical JSON, so that one filter always reads the same.
 *
 * @module
 */

/**
 * JSON with object keys sorted, and array items sorted and each once: the filter's lists are sets
 * (`--task-type grant revoke` and `--task-type revoke grant` ask for the same tasks).
 */
export function filterKey(value: unknown): string {
  if (Array.isArray(value)) return `[${[...new Set(value.map(filterKey))].sort().join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${filterKey(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether the filter a copy keeps (`stored`) is the one of `key` ({@link filterKey}): read again, as
 * an earlier release kept its lists in the order given.
 */
export function sameFilter(stored: string | undefined, key: string): boolean {
  if (stored === key) return true;
  try {
    return stored !== undefined && filterKey(JSON.parse(stored)) === key;
  } catch {
    return false;
  }
}
