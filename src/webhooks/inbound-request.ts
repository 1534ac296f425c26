/**
 * How a listener reads an inbound request: its headers, its media type, and the listener its URL names.
 *
 * @module
 */
import { LISTENER_PATH } from './limits.ts';

/**
 * An inbound webhook request as the listener sees it.
 *
 * @group Webhooks
 */
export interface InboundWebhookRequest {
  /** HTTP method. */
  readonly method: string;
  /** The full request URL (the JWT `aud` must equal it). */
  readonly url: string;
  /**
   * Request headers: a `Headers`, or a record such as Node's `request.headers` (a repeated header's
   * values, given as an array, are joined with ", " as `Headers` joins them).
   */
  readonly headers: Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The raw body, exactly as received: text or bytes. */
  readonly body: string | Uint8Array<ArrayBuffer>;
  /** The source address, for the CIDR allow list. */
  readonly remoteAddress?: string | undefined;
}

// Headers trims a value's surrounding whitespace (HTTP's optional whitespace) and joins repeated
// values with ", "; a plain record is read alike, so both forms get the same answer.
export function header(headers: InboundWebhookRequest['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    for (const one of typeof value === 'string' ? [value] : value) values.push(one.trim());
  }
  return values.length ? values.join(', ') : undefined;
}

/**
 * The media type must be exactly `application/json` (case-insensitive, as media types are); the only
 * parameter allowed is `charset=utf-8`, since the body is UTF-8. `application/json-patch+json`,
 * `text/json` or `application/json; charset=latin1` are refused.
 */
export function isJsonContentType(value: string): boolean {
  const [type = '', ...parameters] = value.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name = '', setting = ''] = parameter.split('=');
    return (
      name.trim().toLowerCase() === 'charset' &&
      setting
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase() === 'utf-8'
    );
  });
}

/** The listener ID of a listener URL, percent-decoded: `/incoming/l1` and `/incoming/%6C1` are one listener. */
export function listenerIdOf(url: string): string {
  const raw = new URL(url).pathname.split(LISTENER_PATH)[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The URLs `aud` may name for this request: the URL as requested, and the listener's own URL with its
 * ID decoded (a request to `/incoming/%6C1` is for listener `l1`, whose URL the sender was given).
 */
export function audiences(url: string): string[] {
  const parsed = new URL(url);
  const at = parsed.pathname.indexOf(LISTENER_PATH);
  if (at < 0) return [url];
  const canonical = `${parsed.origin}${parsed.pathname.slice(0, at)}${LISTENER_PATH}${listenerIdOf(url)}`;
  return canonical === url ? [url] : [url, canonical];
}
