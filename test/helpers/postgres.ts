import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How to get a server where the test cannot start one. */
export const NO_POSTGRES =
  'no PostgreSQL server: set IDGOV_TEST_PG_URL=postgres://user@host:port/db, or install PostgreSQL (initdb, pg_ctl) for scripts/pg-test-server.sh';

const script = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url));

/**
 * A PostgreSQL server for the outbox tests: the one IDGOV_TEST_PG_URL names, else a throw-away one
 * started with scripts/pg-test-server.sh (stopped by `stop()`), else undefined when no PostgreSQL
 * is installed: the caller skips, saying {@link NO_POSTGRES}.
 */
export async function postgresForTests(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  const given = process.env.IDGOV_TEST_PG_URL;
  if (given) return { url: given, stop: async () => {} };
  let url: string;
  try {
    url = execFileSync('bash', [script, 'start'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    if ((error as { status?: number }).status === 3) return undefined;
    throw new Error(`scripts/pg-test-server.sh start failed: ${(error as { stderr?: string }).stderr}`);
  }
  return { url, stop: async () => void execFileSync('bash', [script, 'stop', url], { stdio: 'ignore' }) };
}
