import { type ClientOptions, resolveClientOptions } from './client-options.ts';
import { APIClient } from './core/api-client.ts';
import { createAuthenticator } from './core/auth/credentials.ts';
import type { ClientEvents } from './core/events.ts';
import type { Hooks } from './core/hooks.ts';
import { HttpTransport } from './core/transport/transport.ts';
import { AppEntitlements } from './resources/app-entitlements.ts';
import { FindingRules } from './resources/finding-rules.ts';
import { TaskSearch } from './resources/task-search.ts';

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
  /**
   * Typed hooks: `client.hooks.on('retry', (event) => ...)` is told of every retry from now on
   * (also `request`, `response`, `requestEnd`, `token`, `page`); see the observability guide.
   */
  readonly hooks: Hooks<ClientEvents>;
  readonly #describeAuth: string;

  constructor(options: ClientOptions = {}) {
    const resolved = resolveClientOptions(options);
    this.baseUrl = resolved.baseUrl;
    const http = new HttpTransport(resolved.transport);
    const { logger } = http;
    this.hooks = resolved.transport.hooks;
    const auth = createAuthenticator(
      resolved.credentials,
      `${this.baseUrl}/auth/v1/token`,
      http,
      logger,
      this.hooks,
    );
    this.#describeAuth = auth.describe();
    const api = new APIClient(this.baseUrl, auth, http, logger, this.hooks, {
      maxEmptyPages: resolved.maxEmptyPages,
    });
    this.tasks = new TaskSearch(api);
    this.findingRules = new FindingRules(api);
    this.appEntitlements = new AppEntitlements(api);
  }

  /** What `JSON.stringify(client)` shows: the base URL and the kind of credentials, never a secret. */
  toJSON(): { baseUrl: string; credentials: string } {
    return { baseUrl: this.baseUrl, credentials: this.#describeAuth };
  }
}
