/**
 * `idgov sync --postgres` started beside its database (a container started first): a database not
 * yet accepting connections when the worker makes its tables is waited out, as the run's own store
 * calls are, rather than failing the worker at once. And stopped while its database is out of reach:
 * the stop does not wait minutes for a statement's answer. And a worker whose run another's `--full`
 * ends says so, rather than `Done`.
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

it.skipIf(!pg)(
  'a stop while a commit waits on a database out of reach ends within seconds, saying so (exit 130)',
  async () => {
    const tenant = new FakeTenant({ history: 3_000, seed: 93, latencyMs: 50 });
    const { close } = await tenant.listen();
    const proxy = await silentProxy(pg?.url ?? '');
    let signalledAt: number | undefined;
    try {
      const ran = await idgov(
        ['sync', '--postgres', proxy.url, '--table', `${pg?.schema}.partitioned`, '--concurrency', '2'],
        tenantEnv(tenant),
        (stderr, stop) => {
          // Pages are committing: the database goes out of reach (nothing answers, nothing closes),
          // and the next commit waits on it. Then a container's stop.
          if (signalledAt === undefined && /sync: \d+ pages/.test(stderr)) {
            signalledAt = 0;
            proxy.silenceOpenConnections();
            setTimeout(() => {
              signalledAt = performance.now();
              stop('SIGTERM');
            }, 1_000);
          }
        },
      );
      const afterSignal = performance.now() - (signalledAt ?? Number.NaN);
      expect(ran.code, ran.stderr).toBe(130);
      expect(ran.stderr).toMatch(
        /Stopped by SIGTERM, and the store has not answered for 5 s since \(a database out of reach\?\): ending without its answer\. .*what was committed is kept; run the same command again to resume\.\n$/,
      );
      // Not the store's query timeout (two minutes).
      expect(afterSignal).toBeLessThan(15_000);
    } finally {
      await proxy.close();
      await close();
    }
  },
);

if (!pg) it.skip(`idgov sync --postgres started before its database: ${NO_POSTGRES}`, () => {});

it.skipIf(!pg)(
  "a worker whose run another worker's --full ends says so, not Done, and exits 0",
  async () => {
    const tenant = new FakeTenant({ history: 3_000, seed: 93, latencyMs: 100 });
    const { close } = await tenant.listen();
    const table = `${pg?.schema}.superseded`;
    try {
      let full: ReturnType<typeof idgov> | undefined;
      const worker = await idgov(
        ['sync', '--postgres', pg?.url ?? '', '--table', table, '--concurrency', '1'],
        tenantEnv(tenant),
        (stderr) => {
          // Once the first worker has paged, another begins a full run over it.
          if (!full && /sync: [1-9]\d* pages/.test(stderr))
            full = idgov(
              ['sync', '--postgres', pg?.url ?? '', '--table', table, '--full'],
              tenantEnv(tenant),
            );
        },
      );
      expect(worker.code, worker.stderr).toBe(0);
      expect(worker.stderr).toMatch(
        /Ended by another worker's full run \(--full\), which ended this full run unfinished; .* run the same command to join it/,
      );
      expect(worker.stderr).not.toMatch(/Done: /);
      const other = await full;
      expect(other?.code, other?.stderr).toBe(0);
      expect(other?.stderr).toMatch(/Done: full run: /);
    } finally {
      await close();
    }
  },
  120_000,
);
