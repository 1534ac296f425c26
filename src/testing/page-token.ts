/**
 * The service's page size rules: 0 or missing is 25, then clamped to 10..100.
 *
 * @group Testing kit
 */
export function effectivePageSize(requested: unknown): number {
  const size = typeof requested === 'number' ? requested : Number(requested ?? 0);
  if (!size) return 25;
  return Math.min(100, Math.max(10, Math.trunc(size)));
}

function fingerprint(request: unknown): string {
  // FNV-1a over a key-sorted serialisation: the same request gives the same fingerprint.
  const text = JSON.stringify(request, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}

/**
 * An opaque token for the page at `offset` of `request` (the request without its page token).
 *
 * @group Testing kit
 */
export function encodePageToken(offset: number, request: unknown): string {
  return btoa(`${offset}.${fingerprint(request)}`).replace(/=+$/, '');
}

/**
 * The offset a token points to, or undefined when it is malformed or was issued for another request.
 *
 * @group Testing kit
 */
export function decodePageToken(token: string, request: unknown): number | undefined {
  try {
    const [offset, print] = atob(token).split('.');
    return print === fingerprint(request) && /^\d+$/.test(offset ?? '') ? Number(offset) : undefined;
  } catch {
    return undefined;
  }
}
