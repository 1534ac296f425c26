import type { Credentials } from './core/auth/credentials.ts';
import { ConfigurationError } from './core/errors/errors.ts';
import type { ClientEvents } from './core/events.ts';
import type { HookHandlers } from './core/hooks.ts';
import { DEFAULT_MAX_EMPTY_PAGES, maxEmptyPagesProblem } from './core/paging/empty-pages.ts';
import type { PagingOptions } from './core/paging/page-promise.ts';
import {
  type ResolvedTransportOptions,
  resolveTransportOptions,
  TRANSPORT_OPTIONS,
  type TransportOptions,
} from './core/transport/transport-options.ts';
import { readEnv } from './internal/env.ts';
import { optionKeys, unknownOptionProblem } from './internal/known-options.ts';
import { baseUrlProblem } from './internal/url.ts';
import { VERSION } from './version.ts';

/**
 * Options of {@link IdGovClient}. Every one has a default or an environment variable.
 *
 * @group Client
 */
export interface ClientOptions extends TransportOptions {
  /**
   * The tenant base URL, e.g. `https://acme.example.com`: the origin alone (a path, query or
   * fragment is refused). https is required except for loopback hosts; a trailing slash is fine. Default: `IDGOV_BASE_URL`, else the tenant host in the client ID.
   */
  readonly baseUrl?: string | undefined;
  /**
   * How to authenticate: `{ token }`, `{ clientId, clientSecret }` (OAuth client credentials, with
   * token caching), or an async token provider. Default: `IDGOV_TOKEN`, else `IDGOV_CLIENT_ID` and
   * `IDGOV_CLIENT_SECRET`.
   */
  readonly credentials?: Credentials | undefined;
  /**
   * Empty pages in a row (no items, yet a next token) that end a listing with a `PaginationError`;
   * see {@link PagingOptions.maxEmptyPages}, which overrides it per call. A whole number from 1. Default 100.
   */
  readonly maxEmptyPages?: number | undefined;
  /**
   * Handlers told of every request, answer, retry, token and page of this client (more can be
   * added with `client.hooks.on()`); see the observability guide. A handler that throws is logged
   * and ignored.
   */
  readonly hooks?: HookHandlers<ClientEvents> | undefined;
}

function credentialsFromEnv(): Credentials | undefined {
  const token = readEnv('IDGOV_TOKEN');
  if (token) return { token };
  const clientId = readEnv('IDGOV_CLIENT_ID');
  const clientSecret = readEnv('IDGOV_CLIENT_SECRET');
  if (clientId || clientSecret) return { clientId: clientId ?? '', clientSecret: clientSecret ?? '' };
  return undefined;
}

/** Client IDs look like `<name>@<tenant-host>/pcc`: the host is the tenant. */
function baseUrlFromClientId(credentials: Credentials | undefined): string | undefined {
  if (!credentials || typeof credentials === 'function' || !('clientId' in credentials)) return undefined;
  const host = /@([^/\s]+)\//.exec(credentials.clientId)?.[1];
  return host ? `https://${host}` : undefined;
}

/** {@link ClientOptions} with every default applied and checked. */
export interface ResolvedClientOptions {
  /** The tenant origin. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
  readonly transport: ResolvedTransportOptions<ClientEvents>;
  readonly maxEmptyPages: number;
}

const DEFAULT_MAX_RETRIES = 2;

const CLIENT_OPTIONS = [
  ...optionKeys<Omit<ClientOptions, keyof TransportOptions>>()([
    'baseUrl',
    'credentials',
    'maxEmptyPages',
    'hooks',
  ]),
  ...TRANSPORT_OPTIONS,
];

/**
 * The one place client options get their defaults (from the environment too); a missing or bad
 * one is refused with a {@link ConfigurationError} naming it and the fix.
 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  const unknown = unknownOptionProblem('IdGovClient', options, CLIENT_OPTIONS);
  if (unknown) throw new ConfigurationError(unknown);
  const credentials = options.credentials ?? credentialsFromEnv();
  if (!credentials) {
    throw new ConfigurationError(
      'No credentials: pass credentials ({ token } or { clientId, clientSecret }) or set IDGOV_TOKEN, or IDGOV_CLIENT_ID and IDGOV_CLIENT_SECRET.',
    );
  }
  // A token string passed as the credentials would be quoted by the `in` checks' TypeError.
  if (typeof credentials !== 'function' && (typeof credentials !== 'object' || credentials === null)) {
    throw new ConfigurationError(
      `credentials must be { token }, { clientId, clientSecret } or a token provider function (got a ${typeof credentials}): to use a token string, pass { token: value }.`,
    );
  }
  const fromEnv = readEnv('IDGOV_BASE_URL');
  const rawBaseUrl = options.baseUrl ?? fromEnv ?? baseUrlFromClientId(credentials);
  if (!rawBaseUrl) {
    throw new ConfigurationError(
      'No base URL: pass baseUrl or set IDGOV_BASE_URL (e.g. https://acme.example.com).',
    );
  }
  // A problem names where the URL came from: the caller may never have passed a baseUrl.
  const source =
    options.baseUrl != null
      ? 'baseUrl'
      : fromEnv !== undefined
        ? 'IDGOV_BASE_URL'
        : 'the base URL taken from the host of the client ID (user@HOST/...; pass baseUrl to choose it)';
  const badBaseUrl = baseUrlProblem(rawBaseUrl, source);
  if (badBaseUrl) throw new ConfigurationError(badBaseUrl);
  const transport = resolveTransportOptions<ClientEvents>(options, {
    maxRetries: DEFAULT_MAX_RETRIES,
    userAgent: `idgov-sdk-js/${VERSION}`,
  });
  const badPaging = maxEmptyPagesProblem(options.maxEmptyPages);
  if (badPaging) throw new ConfigurationError(badPaging);
  return {
    baseUrl: new URL(rawBaseUrl).origin,
    credentials,
    transport,
    maxEmptyPages: options.maxEmptyPages ?? DEFAULT_MAX_EMPTY_PAGES,
  };
}
