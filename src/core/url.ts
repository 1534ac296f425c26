import { ConfigurationError, RequestValidationError } from './errors.ts';

/** Loopback hosts, the only ones allowed over plain http (tests, local fakes). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A URL without trailing slashes: the one form of a base URL, wherever one is compared or sent
 * (the JWT `sub` a webhook sender signs and the one a verifier expects).
 */
export function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Checks a URL the SDK will send credentials or signed data to: absolute, and https unless the host
 * is loopback. Returns it without a trailing slash.
 */
export function requireSecureUrl(raw: string, option: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(
      `${option} must be an absolute URL such as https://acme.example.com (got "${raw}").`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigurationError(
      `${option} must use https (plain http is allowed only for loopback hosts such as 127.0.0.1); got ${url.protocol}//${url.host}.`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigurationError(
      `${option} must not carry credentials in the URL; use the credentials option.`,
    );
  }
  return withoutTrailingSlash(url.href);
}

/**
 * Checks the tenant base URL: {@link requireSecureUrl}, and nothing but the origin. A query or a
 * fragment would be cut off or sent to the wrong path with the client secret; a path such as
 * `/api/v1` would double the API prefix and turn every answer into a misleading 404 or 401.
 */
export function requireBaseUrl(raw: string, option: string): string {
  const checked = requireSecureUrl(raw, option);
  const url = new URL(checked);
  const [extra, what] = /[?#]/.test(checked)
    ? [checked.slice(checked.search(/[?#]/)), checked.includes('?') ? 'query' : 'fragment']
    : [url.pathname.replace(/\/+$/, ''), 'path'];
  if (extra) {
    throw new ConfigurationError(
      `${option} must be the tenant origin alone, like ${url.origin}: remove the ${what} "${extra.slice(0, 80)}" (the SDK adds /api/v1/... and /auth/v1/token itself).`,
    );
  }
  return url.origin;
}

/**
 * Encodes one path parameter. An empty value would address the parent collection, and `.`/`..`
 * would be folded away by URL parsing, so both are rejected before anything is sent.
 */
export function pathParam(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RequestValidationError(
      `${name} must be a non-empty string (got ${JSON.stringify(value) ?? String(value)}); an empty ${name} would address the whole collection.`,
      name,
    );
  }
  if (value === '.' || value === '..') {
    throw new RequestValidationError(`${name} cannot be "${value}": it is not an ID.`, name);
  }
  return encodeURIComponent(value);
}
