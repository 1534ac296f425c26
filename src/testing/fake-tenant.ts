import type { ClientCredentials } from '../core/auth/credentials.ts';
import { wait } from '../internal/wait.ts';
import { LISTENER_PATH } from '../webhooks/limits.ts';
import { adminAnswer, adminPath } from './fake-admin.ts';
import { CORS, type FakeAnswer, json, problem } from './fake-answers.ts';
import { entitlementsAnswer, FakeTokens, ruleAnswer, searchAnswer } from './fake-api-routes.ts';
import { FakeData, type WireEntitlement, type WireRule, type WireTask } from './fake-data.ts';
import {
  type Delivery,
  type FakeHmacListener,
  type FakeHmacListenerOptions,
  type FakeJwtListener,
  type FakeJwtListenerOptions,
  type FakeListener,
  type FakeListenerOptions,
  FakeListeners,
  JWKS_PATH,
} from './fake-listeners.ts';
import type { FakeTenantOptions, FakeTenantStats } from './fake-tenant-options.ts';
import { FaultInjector } from './faults.ts';
import { createHmacSecret } from './hmac-secret.ts';
import type { LoopbackServer } from './loopback-server.ts';

export type { FakeTenantOptions, FakeTenantStats };

// Unref'd: an answer still being delayed for a client that gave up must not keep a test process
// alive once the server is closed.
const delay = (ms: number) => wait(ms, { keepAlive: false });

/**
 * An in-memory tenant that follows the service's interface: the token endpoint, task search (filters, paging,
 * expand masks), rule lookup, entitlement listing and webhook listeners. One core
 * ({@link FakeTenant.handle}) is served two ways: as msw handlers and as a real loopback server.
 *
 * @example
 * const tenant = new FakeTenant({ tasks: 120 });
 * const { url, close } = await tenant.listen();
 * const client = new IdGovClient({ baseUrl: url, credentials: tenant.client });
 * for await (const view of client.tasks.search()) console.log(view.task?.displayName);
 * await close();
 *
 * @group Testing kit
 */
export class FakeTenant {
  /** The base URL requests are served under. */
  baseUrl: string;
  /** Client credentials the token endpoint accepts. */
  readonly client: ClientCredentials;
  /**
   * Stored tasks (wire form); change them freely between requests. To move a task in time, replace
   * it (`tasks[i] = { ...task, createdAt }`) rather than change its `createdAt` in place.
   */
  readonly tasks: WireTask[];
  /** Stored rules by ID. */
  readonly rules = new Map<string, WireRule>();
  /** Stored entitlements by app ID. */
  readonly entitlements = new Map<string, WireEntitlement[]>();
  /** Accepted webhook deliveries, in order. */
  readonly deliveries: Delivery[];
  /** What the tenant saw. */
  readonly stats: FakeTenantStats;
  /** The data builders, seeded like the tenant. */
  readonly data: FakeData;
  readonly #listeners: FakeListeners;
  readonly #tokens: FakeTokens;
  readonly #faults: FaultInjector;
  readonly #options: FakeTenantOptions;
  readonly #now: () => number;
  // When the helpers last acted on a task (a task object, replaced at each change); else its updatedAt.
  readonly #acted = new WeakMap<WireTask, string>();
  readonly #actedAt = (task: WireTask) => this.#acted.get(task) ?? task.updatedAt;

  constructor(options: FakeTenantOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.baseUrl = (options.baseUrl ?? 'https://fake-tenant.test').replace(/\/+$/, '');
    this.data = new FakeData(options.seed ?? 1, { now: this.#now() });
    this.tasks =
      options.history !== undefined
        ? this.data.history(options.history)
        : typeof options.tasks === 'number'
          ? this.data.tasks(options.tasks)
          : [...(options.tasks ?? [])];
    for (const rule of options.rules ?? []) this.rules.set(rule.id ?? '', rule);
    for (const [app, list] of Object.entries(options.entitlements ?? {}))
      this.entitlements.set(app, [...list]);
    this.client = options.client ?? {
      clientId: 'sdk-tests@fake-tenant.invalid/pcc',
      clientSecret: createHmacSecret(),
    };
    this.#faults = new FaultInjector(options.faults);
    this.stats = {
      requests: 0,
      tokensIssued: 0,
      searchPages: 0,
      searchPagesBySort: {},
      duplicates: 0,
      faults: this.#faults.counts,
    };
    this.#tokens = new FakeTokens(this.client, options.tokenLifetimeSeconds ?? 600, this.#now);
    this.#listeners = new FakeListeners({
      data: this.data,
      baseUrl: () => this.baseUrl,
      now: this.#now,
      stats: this.stats,
    });
    this.deliveries = this.#listeners.deliveries;
  }

  /**
   * Registers an HMAC listener, with a fresh secret unless `secret` is given. An empty `id`, an `id`
   * already registered or a malformed allowed CIDR throws a `ConfigurationError`.
   */
  addListener(options?: FakeHmacListenerOptions): FakeHmacListener;
  /** Registers a JWT listener verifying bearer JWTs against `jwks`. */
  addListener(options: FakeJwtListenerOptions): FakeJwtListener;
  /** Registers a listener of either kind. */
  addListener(options: FakeListenerOptions): FakeListener;
  addListener(options: FakeListenerOptions = {}): FakeListener {
    return this.#listeners.add(options);
  }

  /**
   * Answers one request. The msw handlers and the loopback server both call this. Every answer
   * carries an `x-request-id` (`fake-req-1`, `fake-req-2`...) and a `Date` by the tenant's clock
   * (its `now` option), as the service's do.
   */
  async handle(request: Request, context: { remoteAddress?: string | undefined } = {}): Promise<FakeAnswer> {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    // Before faults and statistics: driving the tenant is not traffic of the API under test.
    const admin = adminPath(request.url, this.baseUrl);
    if (admin !== undefined) return adminAnswer(this, request, admin);
    this.stats.requests += 1;
    const answer = await this.#answer(request, context);
    if (answer !== 'drop') {
      answer.headers.set('x-request-id', `fake-req-${this.stats.requests}`);
      answer.headers.set('date', new Date(this.#now()).toUTCString());
    }
    return answer;
  }

  async #answer(request: Request, context: { remoteAddress?: string | undefined }): Promise<FakeAnswer> {
    const fault = this.#faults.next();
    if (fault === 'serverError') return problem(503, 'injected fault: service unavailable');
    if (fault === 'rateLimit') {
      return json({ message: 'injected fault: rate limited' }, 429, {
        'retry-after': String(this.#faults.options.retryAfterSeconds ?? 1),
      });
    }
    if (fault === 'slow') await delay(this.#faults.options.slowMs ?? 200);
    const path = new URL(request.url).pathname.slice(
      new URL(this.baseUrl).pathname.replace(/\/$/, '').length,
    );
    // Every method reaches the listener check, which answers 405 to anything but POST.
    if (path.startsWith(LISTENER_PATH)) {
      // A dropped webhook is dropped before or after it is processed: the second case makes the
      // sender retry an event that was accepted, which must then come back as 409.
      if (fault === 'drop' && this.#faults.coin()) return 'drop';
      const answer = await this.#listeners.webhook(
        request,
        path.slice(LISTENER_PATH.length),
        context.remoteAddress,
      );
      return fault === 'drop' ? 'drop' : answer;
    }
    if (fault === 'drop') return 'drop';
    const jwks = JWKS_PATH.exec(path)?.[1];
    if (jwks && request.method === 'GET') return this.#listeners.jwks(jwks);
    if (path === '/auth/v1/token' && request.method === 'POST') {
      const answer = await this.#tokens.issue(request);
      if (answer.ok) this.stats.tokensIssued += 1;
      return answer;
    }
    if (!this.#tokens.authorized(request)) return problem(401, 'missing, unknown or expired access token');
    if (this.#options.latencyMs) await delay(this.#options.latencyMs);
    if (path === '/api/v1/search/tasks' && request.method === 'POST') {
      const answer = await searchAnswer(this.tasks, request, this.#actedAt, (sortBy) => {
        this.stats.searchPagesBySort[sortBy] = (this.stats.searchPagesBySort[sortBy] ?? 0) + 1;
      });
      if (answer.ok) this.stats.searchPages += 1;
      return answer;
    }
    const rule = /^\/api\/v1\/findings\/transformation-rules\/([^/]+)$/.exec(path);
    if (rule?.[1] && request.method === 'GET') return ruleAnswer(this.rules, decodeURIComponent(rule[1]));
    const app = /^\/api\/v1\/apps\/([^/]+)\/entitlements$/.exec(path);
    if (app?.[1] && request.method === 'GET')
      return entitlementsAnswer(this.entitlements, decodeURIComponent(app[1]), new URL(request.url));
    return problem(404, `no route for ${request.method} ${path}`);
  }

  /**
   * Serves the tenant on a real loopback port (127.0.0.1 by default, a free port unless given) and
   * points {@link FakeTenant.baseUrl}, and with it every listener's `url`, at it.
   */
  async listen(options: { port?: number; host?: string } = {}): Promise<LoopbackServer> {
    const { serveOnLoopback } = await import('./loopback-server.ts');
    const server = await serveOnLoopback(
      (request, remoteAddress) => this.handle(request, { remoteAddress }),
      options,
    );
    this.baseUrl = server.url;
    return server;
  }

  /**
   * Creates `count` open tasks now, as users of the tenant would while your code runs (a sync, an
   * export); returns them.
   */
  createTasks(count: number): WireTask[] {
    const now = new Date(this.#now()).toISOString();
    const created = this.data.tasks(count, { createdAt: now, updatedAt: now });
    this.tasks.push(...created);
    return created;
  }

  /** Closes up to `count` open tasks (the oldest first) now, an action on each; returns them. */
  closeTasks(count: number): WireTask[] {
    return this.#change(
      count,
      (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt,
      true,
      () => ({
        state: 'TASK_STATE_CLOSED',
      }),
    );
  }

  /**
   * Comments on up to `count` tasks not deleted (the oldest first, of those `where` picks) now: an
   * action, which a search with `includeActedAfter` finds, on closed tasks too; returns them.
   */
  commentOnTasks(count: number, where: (task: WireTask) => boolean = () => true): WireTask[] {
    return this.#change(
      count,
      (task) => !task.deletedAt && where(task),
      true,
      (task) => ({
        commentCount: (task.commentCount ?? 0) + 1,
      }),
    );
  }

  /**
   * Deletes up to `count` tasks not deleted yet (the oldest first, of those `where` picks) now;
   * returns them. A deletion is no action: `includeActedAfter` does not find it.
   */
  deleteTasks(count: number, where: (task: WireTask) => boolean = () => true): WireTask[] {
    const deletedAt = new Date(this.#now()).toISOString();
    return this.#change(
      count,
      (task) => !task.deletedAt && where(task),
      false,
      () => ({ deletedAt }),
    );
  }

  /**
   * Removes up to `count` tasks (the oldest first, of those `where` picks) entirely, as a purge at
   * the service does: a search no longer returns them, so a copy finds them vanished. Returns them.
   */
  purgeTasks(count: number, where: (task: WireTask) => boolean = () => true): WireTask[] {
    const purged: WireTask[] = [];
    // One pass, in place (the array is the tenant's: searches and tests hold it).
    let kept = 0;
    for (const task of this.tasks) {
      if (purged.length < count && where(task)) purged.push(task);
      else this.tasks[kept++] = task;
    }
    this.tasks.length = kept;
    return purged;
  }

  #change(
    count: number,
    eligible: (task: WireTask) => boolean,
    action: boolean,
    change: (task: WireTask) => Partial<WireTask>,
  ): WireTask[] {
    const now = new Date(this.#now()).toISOString();
    const changed: WireTask[] = [];
    for (let i = 0; i < this.tasks.length && changed.length < count; i++) {
      const task = this.tasks[i] as WireTask;
      if (!eligible(task)) continue;
      const updated = { ...task, ...change(task), updatedAt: now };
      const acted = action ? now : this.#actedAt(task);
      if (acted) this.#acted.set(updated, acted);
      this.tasks[i] = updated;
      changed.push(updated);
    }
    return changed;
  }

  /** The listener with `id`. */
  listener(id: string): FakeListener | undefined {
    return this.#listeners.get(id);
  }
}
