import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** How to get a server where the test cannot start one. */
export const NO_POSTGRES =
  'no PostgreSQL server: set IDGOV_TEST_PG_URL=postgres://user@host:port/db, or install PostgreSQL (initdb, pg_ctl) for scripts/pg-test-server.sh';

const script = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url));

/** A server for one test file, and a schema of its own there for its tables. */
export interface TestPostgres {
  /** The connection URL. */
  readonly url: string;
  /** A fresh schema: name tables `${schema}.name`, so runs on a kept server never meet. */
  readonly schema: string;
  /** Drops the schema, and stops the server if this helper started it. */
  stop(): Promise<void>;
}

async function sql(url: string, text: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL server for the outbox tests: the one IDGOV_TEST_PG_URL names, else a throw-away one
 * started with scripts/pg-test-server.sh, else undefined when no PostgreSQL is installed: the
 * caller skips, saying {@link NO_POSTGRES}.
 */
export async function postgresForTests(): Promise<TestPostgres | undefined> {
  let url = process.env.IDGOV_TEST_PG_URL;
  const started = !url;
  if (!url) {
    try {
      url = execFileSync('bash', [script, 'start'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();
    } catch (error) {
      if ((error as { status?: number }).status === 3) return undefined;
      throw new Error(`scripts/pg-test-server.sh start failed: ${(error as { stderr?: string }).stderr}`);
    }
  }
  const schema = `idgov_test_${crypto.randomUUID().slice(0, 8)}`;
  await sql(url, `CREATE SCHEMA ${schema}`);
  const at = url;
  return {
    url: at,
    schema,
    stop: async () => {
      if (started) execFileSync('bash', [script, 'stop', at], { stdio: 'ignore' });
      else await sql(at, `DROP SCHEMA ${schema} CASCADE`);
    },
  };
}
