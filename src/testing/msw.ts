/**
 * The fake tenant as msw request handlers. A separate entry point, so that the declarations of
 * `@idgov/sdk/testing` never name msw, an optional peer dependency: only code that imports this
 * entry needs msw installed.
 *
 * @module @idgov/sdk/testing/msw
 */
import type { HttpHandler } from 'msw';
import { importPeer } from '../core/optional-peer.ts';
import type { FakeTenant } from './fake-tenant.ts';

/**
 * msw request handlers serving `tenant` at its {@link FakeTenant.baseUrl} (by default
 * `https://fake-tenant.test`). Rejects with a `ConfigurationError` naming the package when msw is
 * not installed.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { mswHandlers } from '@idgov/sdk/testing/msw';
 *
 * const server = setupServer(...(await mswHandlers(tenant)));
 * server.listen();
 *
 * @group Testing
 */
export async function mswHandlers(tenant: FakeTenant): Promise<HttpHandler[]> {
  const { http, HttpResponse } = await importPeer(
    'msw',
    'mswHandlers()',
    () => import('msw'),
    'npm install --save-dev msw',
  );
  return [
    http.all(`${tenant.baseUrl}/*`, async ({ request }) => {
      const answer = await tenant.handle(request, { remoteAddress: '127.0.0.1' });
      return answer === 'drop' ? HttpResponse.error() : answer;
    }),
  ];
}
