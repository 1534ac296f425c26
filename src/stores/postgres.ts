/**
 * A PostgreSQL connection as the SDK's stores hold it: a pool of the caller's or one of their own
 * (`pg`, an optional peer, loaded on first use), table names checked and quoted, and every failure
 * as the SDK's error (postgres-errors.ts).
 *
 * @module
 */

import { ConfigurationError } from '../core/errors/errors.ts';
import { createLogger, type Logger, type LogLevel } from '../core/logger.ts';
import { importPeer } from '../core/optional-peer.ts';
import { optionKeys, unknownOptionProblem } from '../internal/known-options.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { MAX_TIMER_MS } from '../internal/wait.ts';
import { postgresError } from './postgres-errors.ts';

/**
 * What the store needs of a `pg` `Pool` (or anything with the same `query`), so your own pool,
 * instrumented or shared, can be passed in.
 *
 * @group Outbox
 */
export interface PgQueryable {
  /** Runs one statement with `$1`-style parameters. */
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

// Of any length here: a name too long is said as such below.
/**
 * The server's clock, in Unix ms: shared work is timed by it, so a worker on a machine whose clock
 * is off takes no lease early and holds none too long.
 */
export const SERVER_NOW_SQL = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const IDENTIFIER = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;
// PostgreSQL cuts names to 63 bytes.
const MAX_NAME_BYTES = 63;

/**
 * `table` checked as a lower-case SQL name, optionally `schema.name`, short enough that the names
 * made from it (`<table><suffix>`, the longest suffix given) fit whole: cut, two index names could
 * become one and a migration would skip the second.
 */
export function checkedTable(table: string, longestSuffix: string): string {
  if (!IDENTIFIER.test(table)) {
    throw new ConfigurationError(
      `table must be a lower-case SQL name, optionally schema.name (got "${table}"): letters, digits and _.`,
    );
  }
  const bare = table.split('.').pop() ?? '';
  const schema = table.includes('.') ? (table.split('.')[0] ?? '') : '';
  if (schema.length > MAX_NAME_BYTES) {
    throw new ConfigurationError(
      `schema name "${schema}" is ${schema.length} characters; PostgreSQL's names are at most ${MAX_NAME_BYTES}: choose a shorter one.`,
    );
  }
  const longest = MAX_NAME_BYTES - longestSuffix.length;
  if (bare.length > longest) {
    throw new ConfigurationError(
      `table name "${bare}" is ${bare.length} characters; at most ${longest} leave room for its index names (PostgreSQL cuts names to ${MAX_NAME_BYTES} bytes, which would make two indexes one): choose a shorter name.`,
    );
  }
  return table;
}

/**
 * A checked name quoted for SQL, part by part: a reserved word (`user`, `order`) is then a table
 * name like any other. Lower-case only, so `"name"` and `name` mean the same table.
 */
export function quotedName(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/**
 * The name of an index of `table` (checked) made with `suffix`, in the table's schema, as
 * `to_regclass` reads it: an index lives in its table's schema.
 */
export function indexName(table: string, suffix: string): string {
  const parts = table.split('.');
  const bare = parts.pop() ?? '';
  return [...parts.map((part) => `"${part}"`), `"${bare}${suffix}"`].join('.');
}

/**
 * Options of the PostgreSQL stores, `PostgresOutboxStore` (`@idgov/sdk/outbox/postgres`) and
 * `PostgresSyncStore` (`@idgov/sdk/sync/postgres`): a `pool`, or a `connectionString` for a pool
 * of the store's own, and the name of its tables.
 *
 * @group Stores
 */
export interface PostgresStoreOptions {
  /**
   * Your `pg.Pool`; the store's `close()` leaves it open. Give it an `'error'` listener: without
   * one, a connection the server ends while idle (a restart) ends the process.
   */
  readonly pool?: PgQueryable | undefined;
  /**
   * A connection URL, e.g. `postgres://app@db.internal/reports`: the store opens a `pg.Pool` and
   * closes it on `close()`.
   */
  readonly connectionString?: string | undefined;
  /**
   * Most connections of that pool. Default 4 for the outbox, 10 for the sync (give it the sync's
   * `concurrency` or more).
   */
  readonly maxConnections?: number | undefined;
  /**
   * The outbox's table (default `idgov_webhook_outbox`), or the prefix of the sync's tables
   * (default `idgov`: `idgov_tasks`, `idgov_expanded`, ...); optionally schema-qualified
   * (`reporting.idgov` makes `reporting.idgov_tasks`).
   */
  readonly table?: string | undefined;
  /**
   * Where the store's own pool reports a connection it lost while idle (a database restart), at
   * `warn`; the pool opens a new one for the next query. Default: every level to `console.error`.
   */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn`. */
  readonly logLevel?: LogLevel | undefined;
  /**
   * How long a statement of the store's own pool may go unanswered before it fails (a transient
   * `StoreError`, which the outbox and the sync wait out) and its connection is dropped.
   * Default 120000 (2 minutes); 0 waits for ever. Without it, a connection gone half-open (a
   * network partition, a database host that vanished) holds a worker, its leases and its `stop()`
   * until TCP gives up, which can take hours. A connection URL's `query_timeout=MS` parameter
   * overrides it (what `idgov` takes); give a pool of your own `query_timeout` for the same.
   */
  readonly queryTimeoutMs?: number | undefined;
}

/** What a store says of itself to its connection, for its pool and its messages. */
export interface PostgresConnectionLabel {
  /** The store's class (`PostgresOutboxStore`). */
  readonly store: string;
  /** The checked table, for messages. */
  readonly table: string;
  /** The function whose SQL creates the store's tables, for messages (`postgresOutboxSchema()`). */
  readonly schemaSql: string;
  /** Most connections of a pool the store opens, unless the options say. */
  readonly maxConnections: number;
}

/** One store's PostgreSQL connection. */
export class PostgresConnection {
  readonly #pool: Promise<PgQueryable>;
  readonly #ownsPool: boolean;
  readonly #label: PostgresConnectionLabel;
  // A second close() waits for the first, rather than end the pool twice (which pg refuses).
  #closing: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions, label: PostgresConnectionLabel) {
    this.#label = label;
    const unknown = unknownOptionProblem(
      label.store,
      options,
      optionKeys<PostgresStoreOptions>()([
        'pool',
        'connectionString',
        'maxConnections',
        'table',
        'logger',
        'logLevel',
        'queryTimeoutMs',
      ]),
    );
    if (unknown) throw new ConfigurationError(unknown);
    const timeoutProblem = wholeNumberProblem(options?.queryTimeoutMs, 0, MAX_TIMER_MS);
    if (timeoutProblem) {
      throw new ConfigurationError(
        `${label.store}: queryTimeoutMs ${timeoutProblem}: give the ms a statement may go unanswered, or 0 to wait for ever.`,
      );
    }
    if (options?.pool && options.queryTimeoutMs !== undefined) {
      throw new ConfigurationError(
        `${label.store}: queryTimeoutMs applies to a pool the store opens from connectionString: give your own pool query_timeout instead.`,
      );
    }
    if (options?.pool) {
      this.#pool = Promise.resolve(options.pool);
      this.#ownsPool = false;
    } else if (options?.connectionString) {
      const problem = connectionStringProblem(options.connectionString);
      if (problem) throw new ConfigurationError(`${label.store}: ${problem}`);
      const logger = createLogger(options.logger, options.logLevel);
      this.#pool = openPool(options.connectionString, {
        max: options.maxConnections ?? label.maxConnections,
        queryTimeoutMs: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
        store: label.store,
        logger,
      });
      this.#pool.catch(() => {}); // reported by the first query instead
      this.#ownsPool = true;
    } else {
      throw new ConfigurationError(`Pass pool (a pg.Pool) or connectionString to ${label.store}.`);
    }
  }

  /** Runs one statement; `what` says what it does, for the error should it fail. */
  async query<R>(what: string, text: string, values: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
    try {
      const result = await (await this.#pool).query(text, values);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      throw postgresError(error, what, this.#label.table, this.#label.schemaSql);
    }
  }

  /**
   * Ends the pool opened from `connectionString`; a pool passed in is left to its owner. A second
   * call does nothing.
   */
  async close(): Promise<void> {
    this.#closing ??= this.#ownsPool
      ? this.#pool.then((pool) => (pool as PgQueryable & { end(): Promise<void> }).end())
      : Promise.resolve();
    await this.#closing;
  }
}

// How long opening a connection may take.
const CONNECT_TIMEOUT_MS = 10_000;
// Long beside a statement of the stores' on a working server (a full run's last sweep of a large
// copy), short beside the hours TCP takes to give up a half-open connection. What takes longer (an
// index built on a large table by a migration) is given more by query_timeout in the URL.
const QUERY_TIMEOUT_MS = 120_000;

interface PoolSettings {
  readonly max: number;
  readonly queryTimeoutMs: number;
  readonly store: string;
  readonly logger: Logger;
}

/**
 * Why a `postgres://` URL cannot be what was meant, without quoting it (it holds a password): a
 * `#`, `?` or `/` in a password not percent-encoded ends it there, the host is read from the rest
 * of the password, and the real host follows (its `@` shows it) in the fragment, in the name of a
 * query parameter (which holds no `@`), or in the path before a `:port` or a `/`. An error that
 * names the host then quotes part of the password. A spill the URL cannot tell from a database
 * name (`/w0rd@db`), other forms (`host=... password=...`) and URLs that do not parse are left to
 * the driver.
 */
function connectionStringProblem(connectionString: string): string | undefined {
  if (!/^postgres(ql)?:\/\//i.test(connectionString) || !URL.canParse(connectionString)) return undefined;
  const { hash, search, pathname } = new URL(connectionString);
  const spilled =
    hash.includes('@') ||
    search
      .slice(1)
      .split('&')
      .some((part) => (part.split('=')[0] as string).includes('@')) ||
    /@[^/]*[/:]/.test(pathname);
  if (!spilled) return undefined;
  return "the connection string's user or password holds a character that ends it (#, ? or /): percent-encode it (# as %23, ? as %3F, / as %2F, @ as %40).";
}

async function openPool(connectionString: string, settings: PoolSettings): Promise<PgQueryable> {
  const { max, queryTimeoutMs, store, logger } = settings;
  const pg = await importPeer('pg', store, () => import('pg'), 'npm install pg (or pass a pool of your own)');
  const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool;
  // A server that takes the connection, or a statement, and never answers (a partition, a host gone
  // half-open) would otherwise hold a worker, and its signal handling, until TCP gives up: both are
  // given up sooner, as transient failures the store's callers wait out. The pool drops a
  // connection whose statement timed out (pg-pool's query releases it with the error).
  const pool = new Pool({
    connectionString,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
    keepAlive: true,
  });
  // An idle connection the server ended (a restart, pg_terminate_backend) makes the pool emit
  // 'error'; unheard, that event would end the process. The pool drops the connection and the next
  // query opens another, or reports why it cannot.
  pool.on('error', (error) => {
    logger.warn(
      `${store}: an idle PostgreSQL connection failed (${error.message}); reconnecting on next use`,
    );
  });
  return pool;
}
