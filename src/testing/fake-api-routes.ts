/**
 * The fake tenant's API: the token endpoint and the resources, each a function of the tenant's state.
 *
 * @module
 */
import type { ClientCredentials } from '../core/auth/credentials.ts';
import { expandPage } from './expand.ts';
import { json, problem } from './fake-answers.ts';
import type { WireEntitlement, WireRule, WireTask } from './fake-data.ts';
import { createHmacSecret } from './hmac-secret.ts';
import { decodePageToken, effectivePageSize, encodePageToken } from './page-token.ts';
import { type ActedAt, type SearchFilter, searchPage } from './task-filter.ts';

/** The access tokens a fake tenant issued, and their expiry. */
export class FakeTokens {
  readonly #tokens = new Map<string, number>();
  readonly #client: ClientCredentials;
  readonly #lifetimeSeconds: number;
  readonly #now: () => number;

  constructor(client: ClientCredentials, lifetimeSeconds: number, now: () => number) {
    this.#client = client;
    this.#lifetimeSeconds = lifetimeSeconds;
    this.#now = now;
  }

  /** Answers a token request: a new token for the tenant's client, OAuth errors otherwise. */
  async issue(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    if (form.get('grant_type') !== 'client_credentials') {
      return json({ error: 'unsupported_grant_type', error_description: 'use client_credentials' }, 400);
    }
    if (
      form.get('client_id') !== this.#client.clientId ||
      form.get('client_secret') !== this.#client.clientSecret
    ) {
      return json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' }, 401);
    }
    const lifetime = this.#lifetimeSeconds;
    const token = `fake-at-${createHmacSecret()}`;
    const now = this.#now();
    for (const [old, expiry] of this.#tokens) if (expiry <= now) this.#tokens.delete(old);
    this.#tokens.set(token, now + lifetime * 1000);
    return json({ access_token: token, token_type: 'Bearer', expires_in: lifetime });
  }

  /** Whether `request` carries a token this tenant issued that has not expired. */
  authorized(request: Request): boolean {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const expiry = token ? this.#tokens.get(token) : undefined;
    return expiry !== undefined && expiry > this.#now();
  }
}

/** Answers a task search: filtered, paged by offset tokens bound to the request, expanded as asked. */
export async function searchAnswer(
  tasks: readonly WireTask[],
  request: Request,
  actedAt: ActedAt,
  answered?: (sortBy: string) => void,
): Promise<Response> {
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
  const size = effectivePageSize(body.pageSize);
  const { page, more } = searchPage(tasks, body, offset, size, actedAt);
  const { list, expanded } = expandPage(page, body.expandMask?.paths ?? []);
  const next = more ? encodePageToken(offset + size, bound) : '';
  answered?.(typeof body.sortBy === 'string' ? body.sortBy : 'TASK_SEARCH_SORT_BY_UNSPECIFIED');
  return json({ list, expanded, nextPageToken: next });
}

/** Answers a rule lookup. */
export function ruleAnswer(rules: ReadonlyMap<string, WireRule>, id: string): Response {
  const rule = rules.get(id);
  return rule ? json({ transformationRule: rule }) : problem(404, `no finding transformation rule ${id}`);
}

/** Answers an entitlement listing, paged by `page_size` and `page_token`. */
export function entitlementsAnswer(
  entitlements: ReadonlyMap<string, readonly WireEntitlement[]>,
  appId: string,
  url: URL,
): Response {
  const all = entitlements.get(appId) ?? [];
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
