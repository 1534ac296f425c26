/**
 * The fake tenant's admin endpoints, under `/_admin`: what the testing kit does from code
 * (`createTasks`, `closeTasks`...), driven from a shell or another language, to test an
 * incremental sync or a webhook delivery without a harness of one's own. Each but the list of them
 * takes the tenant's client credentials as HTTP Basic (`curl -u "$ID:$SECRET"`): the fake tenant
 * listens on loopback, where any web page open in a browser could otherwise change it.
 *
 * @module
 */
import type { Delivery } from './fake-listeners.ts';

/** What the admin endpoints drive: the fake tenant's helpers (as the fake tenant has them). */
export interface AdministeredTenant {
  readonly client: { readonly clientId: string; readonly clientSecret: string };
  readonly deliveries: readonly Delivery[];
  createTasks(count: number): ReadonlyArray<{ readonly id?: string | null | undefined }>;
  closeTasks(count: number): ReadonlyArray<{ readonly id?: string | null | undefined }>;
  commentOnTasks(count: number): ReadonlyArray<{ readonly id?: string | null | undefined }>;
  deleteTasks(count: number): ReadonlyArray<{ readonly id?: string | null | undefined }>;
  purgeTasks(count: number): ReadonlyArray<{ readonly id?: string | null | undefined }>;
}

/** Each endpoint, as `GET /_admin` lists it. */
export const ADMIN_ENDPOINTS: Readonly<Record<string, string>> = {
  'POST /_admin/tasks/create?count=N': 'creates N tasks now',
  'POST /_admin/tasks/close?count=N': 'closes the N oldest open tasks now (an action)',
  'POST /_admin/tasks/comment?count=N':
    'comments on the N oldest tasks not deleted (an action: includeActedAfter finds it)',
  'POST /_admin/tasks/delete?count=N': 'deletes the N oldest tasks not deleted (no action)',
  'POST /_admin/tasks/purge?count=N':
    'removes the N oldest tasks entirely: a search no longer returns them (they vanish)',
  'GET /_admin/deliveries[?listener=ID]': 'the webhook deliveries accepted, in order',
};

/** The path of `url` under the tenant's `baseUrl` when it is an admin endpoint's (`/_admin...`), else undefined. */
export function adminPath(url: string, baseUrl: string): string | undefined {
  const path = new URL(url).pathname.slice(new URL(baseUrl).pathname.replace(/\/$/, '').length);
  return path === '/_admin' || path.startsWith('/_admin/') ? path : undefined;
}

const answer = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The answer of an admin endpoint at `path` (starting `/_admin`). */
export function adminAnswer(tenant: AdministeredTenant, request: Request, path: string): Response {
  const url = new URL(request.url);
  if (path === '/_admin' || path === '/_admin/') return answer({ endpoints: ADMIN_ENDPOINTS });
  const { clientId, clientSecret } = tenant.client;
  if (request.headers.get('authorization') !== `Basic ${btoa(`${clientId}:${clientSecret}`)}`) {
    return answer(
      { message: 'the admin endpoints take the client credentials as HTTP Basic: curl -u "$ID:$SECRET"' },
      401,
    );
  }
  if (path === '/_admin/deliveries' && request.method === 'GET') {
    const listener = url.searchParams.get('listener');
    return answer({
      deliveries: tenant.deliveries.filter(
        (delivery) => listener === null || delivery.listenerId === listener,
      ),
    });
  }
  const action = /^\/_admin\/tasks\/(create|close|comment|delete|purge)$/.exec(path)?.[1];
  if (!action || request.method !== 'POST') {
    return answer({ message: `no admin endpoint ${request.method} ${path}; GET /_admin lists them` }, 404);
  }
  const countText = url.searchParams.get('count') ?? '1';
  const count = Number(countText);
  if (!/^\d+$/.test(countText) || count > 100_000) {
    return answer({ message: `count must be a whole number up to 100000 (got "${countText}")` }, 400);
  }
  const changed =
    action === 'create'
      ? tenant.createTasks(count)
      : action === 'close'
        ? tenant.closeTasks(count)
        : action === 'comment'
          ? tenant.commentOnTasks(count)
          : action === 'delete'
            ? tenant.deleteTasks(count)
            : tenant.purgeTasks(count);
  return answer({ [action === 'purge' ? 'purged' : 'tasks']: changed.map((task) => task.id) });
}
