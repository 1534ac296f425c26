import type { JSONWebKeySet } from 'jose';
import { ConfigurationError } from '../core/errors/errors.ts';
import { checkCidrs } from '../webhooks/cidr.ts';
import { MemoryEventIdStore } from '../webhooks/event-store.ts';
import { LISTENER_PATH } from '../webhooks/limits.ts';
import { verifyWebhook } from '../webhooks/verify.ts';
import { json, problem } from './fake-answers.ts';
import type { FakeData } from './fake-data.ts';
import { createHmacSecret } from './hmac-secret.ts';

/** The path under the base URL where a JWT listener's JWKS document is served. */
export const JWKS_PATH = /^\/fake\/listeners\/([^/]+)\/jwks\.json$/;

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

/** The webhook listeners of a fake tenant, and the deliveries they accepted. */
export class FakeListeners {
  /** Accepted webhook deliveries, in order. */
  readonly deliveries: Delivery[] = [];
  readonly #byId = new Map<string, FakeListener>();
  readonly #events = new MemoryEventIdStore();
  readonly #data: FakeData;
  readonly #baseUrl: () => string;
  readonly #now: () => number;
  readonly #stats: { duplicates: number };

  constructor(tenant: {
    readonly data: FakeData;
    readonly baseUrl: () => string;
    readonly now: () => number;
    readonly stats: { duplicates: number };
  }) {
    this.#data = tenant.data;
    this.#baseUrl = tenant.baseUrl;
    this.#now = tenant.now;
    this.#stats = tenant.stats;
  }

  /**
   * Registers an HMAC listener, with a fresh secret unless `secret` is given. An empty `id`, an `id`
   * already registered or a malformed allowed CIDR throws a `ConfigurationError`.
   */
  add(options?: FakeHmacListenerOptions): FakeHmacListener;
  /** Registers a JWT listener verifying bearer JWTs against `jwks`. */
  add(options: FakeJwtListenerOptions): FakeJwtListener;
  /** Registers a listener of either kind. */
  add(options: FakeListenerOptions): FakeListener;
  add(options: FakeListenerOptions = {}): FakeListener {
    const id = options.id ?? `lst-${this.#data.rule().id?.slice(5)}`;
    if (typeof id !== 'string' || id === '') {
      throw new ConfigurationError('addListener: id is empty: its URL would be the bare /incoming/ path.');
    }
    if (this.#byId.has(id)) {
      throw new ConfigurationError(
        `addListener: a listener ${JSON.stringify(id)} exists already: pick another id (its secret and settings are kept).`,
      );
    }
    const allowedCidrs = options.allowedCidrs;
    checkCidrs(allowedCidrs, 'allowedCidrs');
    // Getters, so that a listener added before listen() points at the server once it runs.
    const under = (path: string) => () => `${this.#baseUrl()}${path}`;
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
    this.#byId.set(id, listener);
    return listener;
  }

  /** The listener with `id`. */
  get(id: string): FakeListener | undefined {
    return this.#byId.get(id);
  }

  /** The listener a path segment names, percent-decoded; malformed percent-encoding names none. */
  #at(encodedId: string): FakeListener | undefined {
    try {
      return this.#byId.get(decodeURIComponent(encodedId));
    } catch {
      return undefined;
    }
  }

  /** The JWKS document a JWT listener was given, served as its partner would. */
  jwks(encodedId: string): Response {
    const listener = this.#at(encodedId);
    if (listener?.kind !== 'jwt' || listener.jwks instanceof URL) {
      return problem(404, 'no JWKS document is served for this listener');
    }
    return json(listener.jwks);
  }

  /** Verifies and records one webhook call to the listener `listenerId` names (percent-encoded). */
  async webhook(request: Request, listenerId: string, remoteAddress: string | undefined): Promise<Response> {
    const listener = this.#at(listenerId);
    if (!listener) return problem(404, `no listener ${listenerId.slice(0, 100)}`);
    const body = new Uint8Array(await request.arrayBuffer());
    const now = this.#now();
    const verdict = await verifyWebhook(
      { method: request.method, url: request.url, headers: request.headers, body, remoteAddress },
      {
        ...(listener.kind === 'hmac' ? { hmacSecret: listener.secret } : { jwks: listener.jwks }),
        allowedCidrs: listener.allowedCidrs,
        baseUrl: this.#baseUrl(),
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
    if (verdict.status === 409) this.#stats.duplicates += 1;
    if (verdict.status === 405) return json({ message: verdict.reason }, 405, { allow: 'POST' });
    return problem(verdict.status, verdict.reason);
  }
}
