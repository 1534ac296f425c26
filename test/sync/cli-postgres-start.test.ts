/**
 * `idgov sync --postgres` started beside its database (a container started first): a database not
 * yet accepting connections when the worker makes its tables is waited out, as the run's own store
 * calls are, rather than failing the worker at once.
 */
import { createServer } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { FakeTenant } from '../../src/testing/index.ts';
import { tenantEnv } from '../helpers/child.ts';
import { idgov } from '../helpers/idgov.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { type SilentProxy, silentProxy } from '../helpers/silent-proxy.ts';

const pg = await postgresForTests();
afterAll(() => pg?.stop());

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

it.skipIf(!pg)(
  'waits for a database that accepts connections only once the worker has started, then syncs',
  async () => {
    const tenant = new FakeTenant({ history: 200, seed: 91 });
    const { close } = await tenant.listen();
    const port = await freePort();
    const url = new URL(pg?.url ?? '');
    url.hostname = '127.0.0.1';
    url.port = String(port);
    let proxy: Promise<SilentProxy> | undefined;
    try {
      const ran = await idgov(
        ['sync', '--postgres', url.href, '--table', `${pg?.schema}.late`],
        tenantEnv(tenant),
        (stderr) => {
          // The database comes up once the worker has been refused.
          if (!proxy && stderr.includes('trying again in')) proxy = silentProxy(pg?.url ?? '', port);
        },
      );
      expect(ran.stderr).toMatch(/a store call failed \(.*ECONNREFUSED.*\); trying again in \d+ ms/);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(/Done: full run: /);
    } finally {
      await (await proxy)?.close();
      await close();
    }
  },
);

it.skipIf(!pg)('a stop while it waits for the database is a stop (exit 130), not a failure', async () => {
  const tenant = new FakeTenant({ history: 10, seed: 92 });
  const { close } = await tenant.listen();
  const url = new URL(pg?.url ?? '');
  url.hostname = '127.0.0.1';
  url.port = String(await freePort());
  let stopped = false;
  try {
    const ran = await idgov(
      ['sync', '--postgres', url.href, '--table', `${pg?.schema}.never`],
      tenantEnv(tenant),
      (stderr, stop) => {
        // Once: a second SIGINT ends a process the way a user's second Ctrl-C does.
        if (!stopped && stderr.includes('trying again in')) {
          stopped = true;
          stop();
        }
      },
    );
    expect(ran.code, ran.stderr).toBe(130);
    expect(ran.stderr).toMatch(/Stopped by SIGINT before the copy's tables were made; nothing was done\./);
  } finally {
    await close();
  }
});

if (!pg) it.skip(`idgov sync --postgres started before its database: ${NO_POSTGRES}`, () => {});
