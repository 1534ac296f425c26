import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));

/** A child process running a TypeScript file of the repository, as the crash tests start them. */
export interface Child {
  readonly child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  /** What it printed to stderr so far. */
  stderr(): string;
  /** Resolves once it exited: its code (null when killed), the signal, and what it printed. */
  readonly exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/**
 * Starts `script` (a path relative to the repository's root) with `args` under the same Node, with
 * `@idgov/sdk` imports resolved to the source, and `env` over this process's environment.
 */
export function startChild(script: string, args: readonly string[], env: Record<string, string>): Child {
  const path = fileURLToPath(new URL(`../../${script}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', fromSource, path, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** What an `idgov` child needs to reach `tenant` (a fake tenant on loopback), logging at `log`. */
export function tenantEnv(
  tenant: { readonly baseUrl: string; readonly client: { clientId: string; clientSecret: string } },
  log?: string,
): Record<string, string> {
  return {
    IDGOV_BASE_URL: tenant.baseUrl,
    IDGOV_CLIENT_ID: tenant.client.clientId,
    IDGOV_CLIENT_SECRET: tenant.client.clientSecret,
    ...(log === undefined ? {} : { IDGOV_LOG: log }),
  };
}

/**
 * When to SIGKILL a sync: once the tenant has served this many more search pages, or once this
 * returns true (asked every 2 ms with the pages served since the run's start).
 */
export type KillAt = number | ((pages: number) => boolean);

/**
 * `idgov sync --db <db> --concurrency <concurrency>` in a child, run to its end; SIGKILLed at
 * `killAt`, if given. What the crash tests restart until a run completes.
 */
export async function syncUntil(
  tenant: Parameters<typeof tenantEnv>[0] & { readonly stats: { readonly searchPages: number } },
  db: string,
  killAt?: KillAt,
  concurrency = 4,
) {
  const start = tenant.stats.searchPages;
  const run = startChild(
    'src/cli/idgov.ts',
    ['sync', '--db', db, '--concurrency', String(concurrency)],
    tenantEnv(tenant, 'error'),
  );
  const due = typeof killAt === 'number' ? (pages: number) => pages >= killAt : killAt;
  const timer =
    due === undefined
      ? undefined
      : setInterval(() => {
          if (due(tenant.stats.searchPages - start)) run.child.kill('SIGKILL');
        }, 2);
  const result = await run.exited;
  clearInterval(timer);
  return result;
}

/**
 * Runs `idgov sync` on `db` until a run ends by itself, SIGKILLing each run at the page `killAt`
 * names for it (given the kills so far; undefined: not killed): the kills, and the run that ended.
 */
export async function syncThroughKills(
  tenant: Parameters<typeof syncUntil>[0],
  db: string,
  killAt: (kills: number) => KillAt | undefined,
  concurrency = 4,
) {
  for (let kills = 0; ; kills++) {
    const result = await syncUntil(tenant, db, killAt(kills), concurrency);
    if (result.signal !== 'SIGKILL') return { kills, result };
  }
}
