/**
 * Rules for the URLs the SDK sends credentials or signed data to. Each check returns the problem
 * in words, or undefined when there is none: the caller raises it as the error class its input
 * deserves.
 */

import { kindName } from './values.ts';

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
 * Why `raw` (the value of `option`) is no URL to send credentials or signed data to: it must be
 * absolute, https unless the host is loopback, and without credentials of its own.
 */
export function secureUrlProblem(raw: string, option: string): string | undefined {
  if (typeof raw !== 'string') {
    return `${option} must be a URL string such as https://acme.example.com (got ${kindName(raw)}).`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${option} must be an absolute URL such as https://acme.example.com (got "${shownUnparsedUrl(raw)}").`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return `${option} must use https (plain http is allowed only for loopback hosts such as 127.0.0.1); got ${url.protocol}//${url.host}.`;
  }
  if (url.username || url.password) {
    return `${option} must not carry credentials in the URL; use the credentials option.`;
  }
  return undefined;
}

/**
 * Why `raw` is no tenant base URL: {@link secureUrlProblem}, and nothing but the origin. A query
 * or a fragment would be cut off or sent to the wrong path with the client secret; a path such as
 * `/api/v1` would double the API prefix and turn every answer into a misleading 404 or 401.
 */
export function baseUrlProblem(raw: string, option: string): string | undefined {
  const problem = secureUrlProblem(raw, option);
  if (problem) return problem;
  const href = withoutTrailingSlash(new URL(raw).href);
  const url = new URL(href);
  const [extra, what] = /[?#]/.test(href)
    ? [href.slice(href.search(/[?#]/)), href.includes('?') ? 'query' : 'fragment']
    : [url.pathname.replace(/\/+$/, ''), 'path'];
  if (!extra) return undefined;
  // A query or a fragment may hold a key: said by its first character only.
  const shown = what === 'path' ? extra.slice(0, 80) : `${extra[0]}…`;
  return `${option} must be the tenant origin alone, like ${url.origin}: remove the ${what} "${shown}" (the SDK adds /api/v1/... and /auth/v1/token itself).`;
}

/**
 * `raw`, a URL that did not parse, as an error may quote it: what may be secret in it left out
 * (credentials before an `@`, a query, a fragment), as {@link shownUrl} leaves them out of one that did.
 */
function shownUnparsedUrl(raw: string): string {
  return raw.replace(/^([^:/?#]*:\/\/)?[^/?#]*@/, '$1…@').replace(/[?#].*$/s, (rest) => `${rest[0]}…`);
}

/**
 * Why `value` cannot be the path parameter `name`: an empty value would address the parent
 * collection, and `.`/`..` would be folded away by URL parsing.
 */
export function pathParamProblem(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    return `${name} must be a non-empty string (got ${JSON.stringify(value) ?? String(value)}); an empty ${name} would address the whole collection.`;
  }
  if (value === '.' || value === '..') return `${name} cannot be "${value}": it is not an ID.`;
  return undefined;
}

/**
 * `url` as it may be shown (an operator's tool, a metric): without its query and fragment, where a
 * gateway may keep a key (`?code=KEY`), or credentials; '' for no URL.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.search = '';
    parsed.hash = '';
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return '';
  }
}

/** The parts of `url`'s query as written: a `name=value` part's name and value, any other part whole as its value. */
export function queryParts(url: string): Array<{ readonly name?: string; readonly value: string }> {
  const query = URL.canParse(url) ? new URL(url).search.slice(1) : '';
  if (!query) return [];
  return query.split('&').map((part) => {
    const equals = part.indexOf('=');
    return equals < 0 ? { value: part } : { name: part.slice(0, equals), value: part.slice(equals + 1) };
  });
}

// A query parameter's name, shown as such; any other query part (`?KEY`) is shown as `***` whole.
const PARAMETER_NAME = /^[A-Za-z][\w.-]{0,39}$/;

/**
 * `url` as it may be shown where its query matters (a listener, told apart from another by it): no
 * fragment or credentials, and its query's values, where a gateway keeps its key, each `***`
 * (`?code=***`); '' for no URL. Two URLs told apart by their query's names are shown apart; by its
 * values only, alike.
 */
export function maskedUrl(url: string): string {
  const shown = shownUrl(url);
  if (!shown) return '';
  const parts = queryParts(url).map(({ name }) =>
    name !== undefined && PARAMETER_NAME.test(name) ? `${name}=***` : '***',
  );
  return parts.length > 0 ? `${shown}?${parts.join('&')}` : shown;
}
