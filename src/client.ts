import { APIClient } from './core/api-client.ts';
import { type Credentials, createAuthenticator } from './core/auth.ts';
import { checkMaxEmptyPages } from './core/empty-pages.ts';
import { readEnv } from './core/env.ts';
import { ConfigurationError } from './core/errors.ts';
import { createTransport, type TransportOptions } from './core/http.ts';
import type { PagingOptions } from './core/paging.ts';
import { requireBaseUrl } from './core/url.ts';
import { AppEntitlements } from './resources/app-entitlements.ts';
import { FindingRules } from './resources/finding-rules.ts';
import { TaskSearch } from './resources/task-search.ts';
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
}

const DEFAULT_MAX_RETRIES = 2;

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

/**
 * The client of the identity-governance API.
 *
 * @example
 * const client = new IdGovClient({
 *   baseUrl: 'https://acme.example.com',
 *   credentials: { clientId: process.env.IDGOV_CLIENT_ID!, clientSecret: process.env.IDGOV_CLIENT_SECRET! },
 * });
 * for await (const view of client.tasks.search({ taskStates: ['TASK_STATE_OPEN'] })) {
 *   console.log(view.task?.displayName);
 * }
 *
 * @group Client
 */
export class IdGovClient {
  /** Task search. */
  readonly tasks: TaskSearch;
  /** Finding transformation rule lookup. */
  readonly findingRules: FindingRules;
  /** App entitlement listing. */
  readonly appEntitlements: AppEntitlements;
  /** The tenant base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly #describeAuth: string;

  constructor(options: ClientOptions = {}) {
    const credentials = options.credentials ?? credentialsFromEnv();
    if (!credentials) {
      throw new ConfigurationError(
        'No credentials: pass credentials ({ token } or { clientId, clientSecret }) or set IDGOV_TOKEN, or IDGOV_CLIENT_ID and IDGOV_CLIENT_SECRET.',
      );
    }
    const rawBaseUrl = options.baseUrl ?? readEnv('IDGOV_BASE_URL') ?? baseUrlFromClientId(credentials);
    if (!rawBaseUrl) {
      throw new ConfigurationError(
        'No base URL: pass baseUrl or set IDGOV_BASE_URL (e.g. https://acme.example.com).',
      );
    }
    this.baseUrl = requireBaseUrl(rawBaseUrl, 'baseUrl');
    const { http, logger } = createTransport(options, {
      maxRetries: DEFAULT_MAX_RETRIES,
      userAgent: `idgov-sdk-js/${VERSION}`,
    });
    const auth = createAuthenticator(credentials, `${this.baseUrl}/auth/v1/token`, http, logger);
    this.#describeAuth = auth.describe();
    const badPaging = checkMaxEmptyPages(options.maxEmptyPages);
    if (badPaging) throw new ConfigurationError(badPaging.message.replace(/^@idgov\/sdk: /, ''));
    const api = new APIClient(this.baseUrl, auth, http, logger, { maxEmptyPages: options.maxEmptyPages });
    this.tasks = new TaskSearch(api);
    this.findingRules = new FindingRules(api);
    this.appEntitlements = new AppEntitlements(api);
  }

  /** What `JSON.stringify(client)` shows: the base URL and the kind of credentials, never a secret. */
  toJSON(): { baseUrl: string; credentials: string } {
    return { baseUrl: this.baseUrl, credentials: this.#describeAuth };
  }
}
