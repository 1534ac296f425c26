import type { JSONWebKeySet } from 'jose';
import type { ClientCredentials } from '../core/auth.ts';
import { ConfigurationError } from '../core/errors.ts';
import { checkCidrs } from '../webhooks/cidr.ts';
import { MemoryEventIdStore } from '../webhooks/event-store.ts';
import { LISTENER_PATH } from '../webhooks/limits.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { expandPage } from './expand.ts';
import { FakeData, type WireEntitlement, type WireRule, type WireTask } from './fake-data.ts';
import { type FaultCounts, FaultInjector, type FaultOptions } from './faults.ts';
import { createHmacSecret } from './hmac-secret.ts';
import type { LoopbackServer } from './loopback-server.ts';
import { decodePageToken, effectivePageSize, encodePageToken } from './page-token.ts';
import { type SearchFilter, searchTasks } from './task-filter.ts';

/**
 * Options of {@link FakeTenant}.
 *
 * @group Testing kit
 */
export interface FakeTenantOptions {
  /** Base URL for msw handlers. Default `https://fake-tenant.test`; {@link FakeTenant.listen} sets its own. */
  readonly baseUrl?: string | undefined;
  /** Seed of generated data and tokens. Default 1. */
  readonly seed?: number | undefined;
  /** Stored tasks, or how many realistic ones to generate (dated over the 90 days before `now()`). Default 0. */
  readonly tasks?: readonly WireTask[] | number | undefined;
  /** Stored finding transformation rules. */
  readonly rules?: readonly WireRule[] | undefined;
  /** Stored entitlements by app ID. */
  readonly entitlements?: Readonly<Record<string, readonly WireEntitlement[]>> | undefined;
  /** Lifetime of issued access tokens, in seconds. Default 600. */
  readonly tokenLifetimeSeconds?: number | undefined;
  /** Faults to inject into every request. */
  readonly faults?: FaultOptions | undefined;
  /** Latency added to every API answer, in ms (for benchmarks). Default 0. */
  readonly latencyMs?: number | undefined;
  /** The tenant's clock in ms. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /**
   * The client credentials the token endpoint accepts, e.g. those your code reads from its
   * environment. Default: a client ID of the fake tenant and a fresh secret.
   */
  readonly client?: ClientCredentials | undefined;
}

interface FakeListenerCommonOptions {
  /** Listener ID. Default: generated. */
  readonly id?: string | undefined;
  /** Allowed source CIDRs; others get 403. */
  readonly allowedCidrs?: readonly string[] | undefined;
}

/**
 * An HMAC listener to add: its secret, or a fresh one.
 *
 * @group Testing kit
 */
export interface FakeHmacListenerOptions extends FakeListenerCommonOptions {
  /** The HMAC signing secret. Default: a fresh one, as the service generates. */
  readonly secret?: string | undefined;
  readonly jwks?: undefined;
}

/**
 * A JWT listener to add: the JWKS its senders' keys are in.
 *
 * @group Testing kit
 */
export interface FakeJwtListenerOptions extends FakeListenerCommonOptions {
  /** The JWKS document (the public keys), or its URL. */
  readonly jwks: JSONWebKeySet | URL;
  readonly secret?: undefined;
}

/**
 * How a fake listener authenticates: HMAC (the default) or JWT (give `jwks`).
 *
 * @group Testing kit
 */
export type FakeListenerOptions = FakeHmacListenerOptions | FakeJwtListenerOptions;

interface FakeListenerCommon {
  /** Listener ID. */
  readonly id: string;
  /** The full listener URL, under the URL the tenant is served at now (it follows {@link FakeTenant.listen}). */
  readonly url: string;
  /** Allowed source CIDRs; others get 403. */
  readonly allowedCidrs?: readonly string[] | undefined;
}

/**
 * An HMAC listener registered on the fake tenant.
 *
 * @group Testing kit
 */
export interface FakeHmacListener extends FakeListenerCommon {
  /** The authentication method. */
  readonly kind: 'hmac';
  /** The signing secret senders use. */
  readonly secret: string;
}

/**
 * A JWT listener registered on the fake tenant.
 *
 * @group Testing kit
 */
export interface FakeJwtListener extends FakeListenerCommon {
  /** The authentication method. */
  readonly kind: 'jwt';
  /** The JWKS the bearer JWTs are verified against. */
  readonly jwks: JSONWebKeySet | URL;
  /**
   * Where the tenant serves a JWKS document given as `jwks`, without authentication: the stand-in
   * for the HTTPS JWKS URL a partner hosts (`idgov-fake-tenant` prints it).
   */
  readonly jwksUrl: string;
}

/**
 * A listener registered on the fake tenant; `kind` tells which.
 *
 * @group Testing kit
 */
export type FakeListener = FakeHmacListener | FakeJwtListener;

/**
 * One webhook delivery the fake tenant accepted (status 200).
 *
 * @group Testing kit
 */
export interface Delivery {
  /** Listener ID. */
  readonly listenerId: string;
  /** Event ID. */
  readonly eventId: string;
  /** The parsed JSON body (the automation's context data). */
  readonly body: unknown;
  /** When it was accepted, in ms. */
  readonly receivedAt: number;
}

/**
 * Counters of what the fake tenant saw, for assertions and soak reports.
 *
 * @group Testing kit
 */
export interface FakeTenantStats {
  /** Requests received, faulted ones included. */
  requests: number;
  /** Access tokens issued. */
  tokensIssued: number;
  /** Task search requests answered with a page. */
  searchPages: number;
  /** Webhook requests answered 409. */
  duplicates: number;
  /** Faults injected, by kind. */
  readonly faults: FaultCounts;
}

/**
 * An answer, or the instruction to drop the connection without one.
 *
 * @group Testing kit
 */
export type FakeAnswer = Response | 'drop';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers':
    'authorization, content-type, user-agent, webhook-timestamp, webhook-event-id, webhook-signature',
  'access-control-expose-headers': 'retry-after, x-request-id',
};

/** The path under the base URL where a JWT listener's JWKS document is served. */
const JWKS_PATH = /^\/fake\/listeners\/([^/]+)\/jwks\.json$/;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...CORS, ...headers },
  });
const problem = (status: number, message: string) => json({ message }, status);
// Unref'd where the runtime allows: an answer still being delayed for a client that gave up must not
// keep a test process alive once the server is closed.
const sleep = (ms: number) =>
  new Promise((resolve) => (setTimeout(resolve, ms) as { unref?: () => void }).unref?.());

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
  /** Stored tasks (wire form); change them freely between requests. */
  readonly tasks: WireTask[];
  /** Stored rules by ID. */
  readonly rules = new Map<string, WireRule>();
  /** Stored entitlements by app ID. */
  readonly entitlements = new Map<string, WireEntitlement[]>();
  /** Accepted webhook deliveries, in order. */
  readonly deliveries: Delivery[] = [];
  /** What the tenant saw. */
  readonly stats: FakeTenantStats;
  /** The data builders, seeded like the tenant. */
  readonly data: FakeData;
  readonly #listeners = new Map<string, FakeListener>();
  readonly #tokens = new Map<string, number>();
  readonly #events = new MemoryEventIdStore();
  readonly #faults: FaultInjector;
  readonly #options: FakeTenantOptions;
  readonly #now: () => number;

  constructor(options: FakeTenantOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.baseUrl = (options.baseUrl ?? 'https://fake-tenant.test').replace(/\/+$/, '');
    this.data = new FakeData(options.seed ?? 1, { now: this.#now() });
    this.tasks =
      typeof options.tasks === 'number' ? this.data.tasks(options.tasks) : [...(options.tasks ?? [])];
    for (const rule of options.rules ?? []) this.rules.set(rule.id ?? '', rule);
    for (const [app, list] of Object.entries(options.entitlements ?? {}))
      this.entitlements.set(app, [...list]);
    this.client = options.client ?? {
      clientId: 'sdk-tests@fake-tenant.invalid/pcc',
      clientSecret: createHmacSecret(),
    };
    this.#faults = new FaultInjector(options.faults);
    this.stats = { requests: 0, tokensIssued: 0, searchPages: 0, duplicates: 0, faults: this.#faults.counts };
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
    const id = options.id ?? `lst-${this.data.rule().id?.slice(5)}`;
    if (typeof id !== 'string' || id === '') {
      throw new ConfigurationError('addListener: id is empty: its URL would be the bare /incoming/ path.');
    }
    if (this.#listeners.has(id)) {
      throw new ConfigurationError(
        `addListener: a listener ${JSON.stringify(id)} exists already: pick another id (its secret and settings are kept).`,
      );
    }
    const allowedCidrs = options.allowedCidrs;
    checkCidrs(allowedCidrs, 'allowedCidrs');
    // Getters, so that a listener added before listen() points at the server once it runs.
    const under = (path: string) => () => `${this.baseUrl}${path}`;
    const url = under(`${LISTENER_PATH}${encodeURIComponent(id)}`);
    const jwksUrl = under(`/fake/listeners/${encodeURIComponent(id)}/jwks.json`);
    const listener: FakeListener =
      options.jwks !== undefined
        ? {
            kind: 'jwt',
            id,
            allowedCidrs,
            jwks: options.jwks,
            get url() {
              return url();
            },
            get jwksUrl() {
              return jwksUrl();
            },
          }
        : {
            kind: 'hmac',
            id,
            allowedCidrs,
            secret: options.secret ?? createHmacSecret(),
            get url() {
              return url();
            },
          };
    this.#listeners.set(id, listener);
    return listener;
  }

  /** Answers one request. The msw handlers and the loopback server both call this. */
  async handle(request: Request, context: { remoteAddress?: string | undefined } = {}): Promise<FakeAnswer> {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    this.stats.requests += 1;
    const fault = this.#faults.next();
    if (fault === 'serverError') return problem(503, 'injected fault: service unavailable');
    if (fault === 'rateLimit') {
      return json({ message: 'injected fault: rate limited' }, 429, {
        'retry-after': String(this.#faults.options.retryAfterSeconds ?? 1),
      });
    }
    if (fault === 'slow') await sleep(this.#faults.options.slowMs ?? 200);
    const path = new URL(request.url).pathname.slice(
      new URL(this.baseUrl).pathname.replace(/\/$/, '').length,
    );
    // Every method reaches the listener check, which answers 405 to anything but POST.
    if (path.startsWith(LISTENER_PATH)) {
      // A dropped webhook is dropped before or after it is processed: the second case makes the
      // sender retry an event that was accepted, which must then come back as 409.
      if (fault === 'drop' && this.#faults.coin()) return 'drop';
      const answer = await this.#webhook(request, path.slice(LISTENER_PATH.length), context.remoteAddress);
      return fault === 'drop' ? 'drop' : answer;
    }
    if (fault === 'drop') return 'drop';
    const jwks = JWKS_PATH.exec(path)?.[1];
    if (jwks && request.method === 'GET') return this.#jwks(jwks);
    if (path === '/auth/v1/token' && request.method === 'POST') return this.#token(request);
    if (!this.#authorized(request)) return problem(401, 'missing, unknown or expired access token');
    if (this.#options.latencyMs) await sleep(this.#options.latencyMs);
    if (path === '/api/v1/search/tasks' && request.method === 'POST') return this.#search(request);
    const rule = /^\/api\/v1\/findings\/transformation-rules\/([^/]+)$/.exec(path);
    if (rule?.[1] && request.method === 'GET') return this.#rule(decodeURIComponent(rule[1]));
    const app = /^\/api\/v1\/apps\/([^/]+)\/entitlements$/.exec(path);
    if (app?.[1] && request.method === 'GET')
      return this.#entitlements(decodeURIComponent(app[1]), new URL(request.url));
    return problem(404, `no route for ${request.method} ${path}`);
  }

  /** The listener a path segment names, percent-decoded; malformed percent-encoding names none. */
  #listenerAt(encodedId: string): FakeListener | undefined {
    try {
      return this.#listeners.get(decodeURIComponent(encodedId));
    } catch {
      return undefined;
    }
  }

  #jwks(encodedId: string): Response {
    const listener = this.#listenerAt(encodedId);
    if (listener?.kind !== 'jwt' || listener.jwks instanceof URL) {
      return problem(404, 'no JWKS document is served for this listener');
    }
    return json(listener.jwks);
  }

  async #token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    if (form.get('grant_type') !== 'client_credentials') {
      return json({ error: 'unsupported_grant_type', error_description: 'use client_credentials' }, 400);
    }
    if (
      form.get('client_id') !== this.client.clientId ||
      form.get('client_secret') !== this.client.clientSecret
    ) {
      return json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' }, 401);
    }
    const lifetime = this.#options.tokenLifetimeSeconds ?? 600;
    const token = `fake-at-${createHmacSecret()}`;
    const now = this.#now();
    for (const [old, expiry] of this.#tokens) if (expiry <= now) this.#tokens.delete(old);
    this.#tokens.set(token, now + lifetime * 1000);
    this.stats.tokensIssued += 1;
    return json({ access_token: token, token_type: 'Bearer', expires_in: lifetime });
  }

  #authorized(request: Request): boolean {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const expiry = token ? this.#tokens.get(token) : undefined;
    return expiry !== undefined && expiry > this.#now();
  }

  async #search(request: Request): Promise<Response> {
    const text = await request.text();
    let body: SearchFilter & {
      pageSize?: number;
      pageToken?: string;
      expandMask?: { paths?: string[] | null } | null;
    };
    try {
      body = text.trim() ? JSON.parse(text) : {};
    } catch {
      return problem(400, 'request body is not valid JSON');
    }
    const { pageToken, ...bound } = body;
    const offset = pageToken ? decodePageToken(pageToken, bound) : 0;
    if (offset === undefined) return problem(400, 'invalid page token: it belongs to another request');
    const found = searchTasks(this.tasks, body);
    const size = effectivePageSize(body.pageSize);
    const page = found.slice(offset, offset + size);
    const { list, expanded } = expandPage(page, body.expandMask?.paths ?? []);
    this.stats.searchPages += 1;
    const next = offset + size < found.length ? encodePageToken(offset + size, bound) : '';
    return json({ list, expanded, nextPageToken: next });
  }

  #rule(id: string): Response {
    const rule = this.rules.get(id);
    return rule ? json({ transformationRule: rule }) : problem(404, `no finding transformation rule ${id}`);
  }

  #entitlements(appId: string, url: URL): Response {
    const all = this.entitlements.get(appId) ?? [];
    const bound = { appId, pageSize: url.searchParams.get('page_size') ?? '' };
    const token = url.searchParams.get('page_token');
    const offset = token ? decodePageToken(token, bound) : 0;
    if (offset === undefined) return problem(400, 'invalid page token');
    const size = effectivePageSize(url.searchParams.get('page_size'));
    const next = offset + size < all.length ? encodePageToken(offset + size, bound) : '';
    return json({
      list: all.slice(offset, offset + size).map((appEntitlement) => ({ appEntitlement })),
      nextPageToken: next,
    });
  }

  async #webhook(request: Request, listenerId: string, remoteAddress: string | undefined): Promise<Response> {
    const listener = this.#listenerAt(listenerId);
    if (!listener) return problem(404, `no listener ${listenerId.slice(0, 100)}`);
    const body = new Uint8Array(await request.arrayBuffer());
    const now = this.#now();
    const verdict = await verifyWebhook(
      { method: request.method, url: request.url, headers: request.headers, body, remoteAddress },
      {
        ...(listener.kind === 'hmac' ? { hmacSecret: listener.secret } : { jwks: listener.jwks }),
        allowedCidrs: listener.allowedCidrs,
        baseUrl: this.baseUrl,
        seen: this.#events,
        now,
      },
    );
    if (verdict.status === 200) {
      const parsed = JSON.parse(new TextDecoder().decode(body)) as unknown;
      this.deliveries.push({
        listenerId: listener.id,
        eventId: verdict.eventId ?? '',
        body: parsed,
        receivedAt: now,
      });
    }
    if (verdict.status === 409) this.stats.duplicates += 1;
    if (verdict.status === 405) return json({ message: verdict.reason }, 405, { allow: 'POST' });
    return problem(verdict.status, verdict.reason);
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

  /** The listener with `id`. */
  listener(id: string): FakeListener | undefined {
    return this.#listeners.get(id);
  }
}
