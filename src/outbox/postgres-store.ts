/**
 * The outbox store for many workers: one PostgreSQL table, drained safely by several processes on
 * several machines. Import it from `@idgov/sdk/outbox/postgres`; it needs the `pg` package.
 *
 * @module outbox/postgres
 */
import { ConfigurationError } from '../core/errors.ts';
import { createLogger, type Logger, type LogLevel } from '../core/logger.ts';
import { importPeer } from '../core/optional-peer.ts';
import { dueSql, notHeldSql } from './lease.ts';
import { postgresError } from './postgres-errors.ts';
import { EVENT_COLUMNS, type EventRow, eventFromRow } from './rows.ts';
import {
  type AttemptOutcome,
  type ClaimedEvent,
  type ClaimOptions,
  type NewOutboxEvent,
  OUTBOX_STATES,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
} from './store.ts';

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

/**
 * Options of {@link PostgresOutboxStore}: a `pool`, or a `connectionString` for a pool of its own.
 *
 * @group Outbox
 */
export interface PostgresOutboxStoreOptions {
  /**
   * Your `pg.Pool`; {@link PostgresOutboxStore.close} leaves it open. Give it an `'error'` listener:
   * without one, a connection the server ends while idle (a restart) ends the process.
   */
  readonly pool?: PgQueryable | undefined;
  /** A connection URL, e.g. `postgres://outbox@db.internal/app`: the store opens a `pg.Pool` and closes it on close(). */
  readonly connectionString?: string | undefined;
  /** Most connections of that pool. Default 4. */
  readonly maxConnections?: number | undefined;
  /** The table, optionally schema-qualified (`partner.webhook_outbox`). Default `idgov_webhook_outbox`. */
  readonly table?: string | undefined;
  /**
   * Where the store's own pool reports a connection it lost while idle (a database restart), at
   * `warn`; the pool opens a new one for the next query. Default `console`.
   */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn`. */
  readonly logLevel?: LogLevel | undefined;
}

const DEFAULT_TABLE = 'idgov_webhook_outbox';
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;
// PostgreSQL cuts names to 63 bytes: the table's index names (`<table>_expiry`, the longest) must
// fit whole, or two would be cut to one name and migrate() would skip the second.
const LONGEST_INDEX_SUFFIX = '_expiry';
const MAX_NAME_BYTES = 63;

function checkedTable(table: string): string {
  if (!IDENTIFIER.test(table)) {
    throw new ConfigurationError(
      `table must be a lower-case SQL name, optionally schema.name (got "${table}"): letters, digits and _.`,
    );
  }
  const bare = table.split('.').pop() ?? '';
  const longest = MAX_NAME_BYTES - LONGEST_INDEX_SUFFIX.length;
  if (bare.length > longest) {
    throw new ConfigurationError(
      `table name "${bare}" is ${bare.length} characters; at most ${longest} leave room for its index names (PostgreSQL cuts names to ${MAX_NAME_BYTES} bytes, which would make two indexes one): choose a shorter name.`,
    );
  }
  return table;
}

/**
 * The checked name quoted for SQL, part by part: a reserved word (`user`, `order`) is then a table
 * name like any other. Lower-case only, so `"name"` and `name` mean the same table.
 */
function quotedTable(table: string): string {
  return checkedTable(table)
    .split('.')
    .map((part) => `"${part}"`)
    .join('.');
}

/**
 * The SQL that creates the outbox table: run it yourself (a migration tool, a DBA), or let
 * {@link PostgresOutboxStore.migrate} run it. Idempotent. Times are Unix milliseconds.
 *
 * @group Outbox
 */
export function postgresOutboxSchema(table: string = DEFAULT_TABLE): string {
  const name = quotedTable(table);
  const bare = table.split('.').pop();
  return `-- Durable webhook outbox of @idgov/sdk. One row per event; times are Unix milliseconds.
CREATE TABLE IF NOT EXISTS ${name} (
  seq             bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- enqueue order
  event_id        text    NOT NULL UNIQUE,  -- sent as Webhook-Event-Id on every attempt
  listener        text    NOT NULL,         -- the listener URL
  body            text    NOT NULL,         -- the exact JSON text signed and sent
  state           text    NOT NULL DEFAULT 'pending'
                          CHECK (state IN ('pending', 'delivered', 'dead', 'expired')),
  enqueued_at     bigint  NOT NULL,
  expires_at      bigint  NOT NULL,         -- never sent after: the idempotency window
  next_attempt_at bigint  NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  last_attempt_at bigint,
  last_status     integer,                  -- the listener's last answer, for operators
  last_body       text,
  last_error      text,
  finished_at     bigint,                   -- left pending at
  lease_token     text,                     -- the worker holding the event, until lease_until
  leased_at       bigint,
  lease_until     bigint
);
CREATE INDEX IF NOT EXISTS "${bare}_queue" ON ${name} (listener, state, seq);
CREATE INDEX IF NOT EXISTS "${bare}_expiry" ON ${name} (listener, state, expires_at);
`;
}

/**
 * An {@link OutboxStore} in a PostgreSQL table, for many workers on many machines.
 *
 * Every write is one committed statement before its promise resolves. Workers claim events with
 * `FOR UPDATE SKIP LOCKED` under a lease: two workers never claim one event while its lease holds,
 * and a worker that dies hands its events on once the lease runs out. Leases use the workers' clocks:
 * keep them in sync (NTP), well within the lease (5 minutes by default).
 *
 * @example
 * const store = new PostgresOutboxStore({ connectionString: process.env.DATABASE_URL });
 * await store.migrate(); // or run postgresOutboxSchema() with your migration tool
 *
 * @group Outbox
 */
export class PostgresOutboxStore implements OutboxStore {
  /** The table the events live in. */
  readonly table: string;
  /** {@link PostgresOutboxStore.table}, quoted for SQL. */
  readonly #t: string;
  readonly #pool: Promise<PgQueryable>;
  readonly #ownsPool: boolean;

  constructor(options: PostgresOutboxStoreOptions) {
    this.table = checkedTable(options?.table ?? DEFAULT_TABLE);
    this.#t = quotedTable(this.table);
    if (options.pool) {
      this.#pool = Promise.resolve(options.pool);
      this.#ownsPool = false;
    } else if (options.connectionString) {
      const logger = createLogger(options.logger, options.logLevel);
      this.#pool = openPool(options.connectionString, options.maxConnections ?? 4, logger);
      this.#pool.catch(() => {}); // reported by the first query instead
      this.#ownsPool = true;
    } else {
      throw new ConfigurationError('Pass pool (a pg.Pool) or connectionString.');
    }
  }

  async #query<R = EventRow>(
    what: string,
    text: string,
    values: unknown[],
  ): Promise<{ rows: R[]; rowCount: number }> {
    try {
      const result = await (await this.#pool).query(text, values);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      throw postgresError(error, what, this.table);
    }
  }

  /**
   * Creates the table and its indexes if missing ({@link postgresOutboxSchema}). Safe to run from
   * every worker at start: an advisory lock keeps concurrent runs from racing.
   */
  async migrate(): Promise<void> {
    // One simple query: its statements run as one implicit transaction, which holds the lock to the end.
    const lock = `SELECT pg_advisory_xact_lock(hashtext('${this.table}'));`;
    await this.#query('migrating', `${lock}\n${postgresOutboxSchema(this.table)}`, []);
  }

  async add(event: NewOutboxEvent): Promise<OutboxEvent | undefined> {
    const { rowCount } = await this.#query(
      'storing an event',
      `INSERT INTO ${this.#t} (event_id, listener, body, enqueued_at, expires_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $4) ON CONFLICT (event_id) DO NOTHING`,
      [event.eventId, event.listener, event.body, event.enqueuedAt, event.expiresAt],
    );
    return rowCount === 0 ? this.get(event.eventId) : undefined;
  }

  async claim(options: ClaimOptions): Promise<ClaimedEvent[]> {
    const { listener, now, leaseMs, limit, ordered, leaseToken } = options;
    const t = this.#t;
    const ready = `state = 'pending' AND expires_at > $2 AND ${dueSql('$2', '$5')} AND ${notHeldSql('$2')}
      AND event_id <> ALL($6::text[])`;
    // Ordered: the head, found without SKIP LOCKED (skipping a locked head would send the next event
    // first); the UPDATE then waits for the row and re-checks it. Unordered: any free due events.
    const target = ordered
      ? `seq = (SELECT min(seq) FROM ${t} WHERE listener = $1 AND state = 'pending' AND expires_at > $2) AND ${ready}`
      : `seq IN (SELECT seq FROM ${t} WHERE listener = $1 AND ${ready} ORDER BY seq LIMIT $7 FOR UPDATE SKIP LOCKED)`;
    const exclude = [...(options.exclude ?? [])];
    const { rows } = await this.#query(
      'claiming events',
      `UPDATE ${t} SET lease_token = $3, leased_at = $2, lease_until = $4 WHERE ${target}
       RETURNING ${EVENT_COLUMNS}`,
      ordered
        ? [listener, now, leaseToken, now + leaseMs, leaseMs, exclude]
        : [listener, now, leaseToken, now + leaseMs, leaseMs, exclude, limit],
    );
    return rows.map((row) => ({ ...eventFromRow(row), leaseToken })).sort((a, b) => a.seq - b.seq);
  }

  async complete(
    eventId: string,
    leaseToken: string,
    now: number,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
    const { answer } = outcome;
    const { rowCount } = await this.#query(
      'recording an outcome',
      `UPDATE ${this.#t} SET state = $1, attempts = attempts + 1, last_attempt_at = $2,
         last_status = $3, last_body = $4, last_error = $5, next_attempt_at = $6, finished_at = $7,
         lease_token = NULL, leased_at = NULL, lease_until = NULL
       WHERE event_id = $8 AND (state = 'pending' OR ($1 = 'delivered' AND state = 'expired'))
         AND ($1 = 'delivered' OR lease_token = $9)`,
      [
        outcome.state,
        now,
        answer.status ?? null,
        answer.body ?? null,
        answer.error ?? null,
        outcome.state === 'pending' ? outcome.nextAttemptAt : now,
        outcome.state === 'pending' ? null : now,
        eventId,
        leaseToken,
      ],
    );
    return rowCount > 0;
  }

  async expire(listener: string, now: number): Promise<number> {
    // SKIP LOCKED: rows another worker is expiring or claiming right now are its business.
    const { rowCount } = await this.#query(
      'expiring events',
      `UPDATE ${this.#t} SET state = 'expired', finished_at = $2, lease_token = NULL, leased_at = NULL, lease_until = NULL
       WHERE seq IN (SELECT seq FROM ${this.#t} WHERE listener = $1 AND state = 'pending' AND expires_at <= $2
                       AND ${notHeldSql('$2')} FOR UPDATE SKIP LOCKED)`,
      [listener, now],
    );
    return rowCount;
  }

  async release(eventId: string, leaseToken: string): Promise<void> {
    await this.#query(
      'releasing an event',
      `UPDATE ${this.#t} SET lease_token = NULL, leased_at = NULL, lease_until = NULL
       WHERE event_id = $1 AND lease_token = $2`,
      [eventId, leaseToken],
    );
  }

  async get(eventId: string): Promise<OutboxEvent | undefined> {
    const { rows } = await this.#query(
      'reading an event',
      `SELECT ${EVENT_COLUMNS} FROM ${this.#t} WHERE event_id = $1`,
      [eventId],
    );
    return rows[0] ? eventFromRow(rows[0]) : undefined;
  }

  async counts(listener: string): Promise<Record<OutboxState, number>> {
    const counts = Object.fromEntries(OUTBOX_STATES.map((s) => [s, 0])) as Record<OutboxState, number>;
    const { rows } = await this.#query<{ state: OutboxState; n: string }>(
      'counting events',
      `SELECT state, count(*) AS n FROM ${this.#t} WHERE listener = $1 GROUP BY state`,
      [listener],
    );
    for (const { state, n } of rows) counts[state] = Number(n);
    return counts;
  }

  async list(listener: string, state: OutboxState, limit: number): Promise<OutboxEvent[]> {
    const { rows } = await this.#query(
      'listing events',
      `SELECT ${EVENT_COLUMNS} FROM ${this.#t} WHERE listener = $1 AND state = $2 ORDER BY seq LIMIT $3`,
      [listener, state, limit],
    );
    return rows.map(eventFromRow);
  }

  async retry(eventId: string, now: number): Promise<boolean> {
    const { rowCount } = await this.#query(
      'retrying an event',
      `UPDATE ${this.#t} SET state = 'pending', next_attempt_at = $2, finished_at = NULL,
         lease_token = NULL, leased_at = NULL, lease_until = NULL
       WHERE event_id = $1 AND state IN ('dead', 'pending') AND expires_at > $2`,
      [eventId, now],
    );
    return rowCount > 0;
  }

  async purgeDelivered(listener: string, before: number): Promise<number> {
    const { rowCount } = await this.#query(
      'purging delivered events',
      `DELETE FROM ${this.#t} WHERE listener = $1 AND state = 'delivered' AND finished_at < $2`,
      [listener, before],
    );
    return rowCount;
  }

  /** Ends the pool the store opened from `connectionString`; a pool passed in is left to you. */
  async close(): Promise<void> {
    if (this.#ownsPool) await ((await this.#pool) as PgQueryable & { end(): Promise<void> }).end();
  }
}

async function openPool(connectionString: string, max: number, logger: Logger): Promise<PgQueryable> {
  const pg = await importPeer(
    'pg',
    'PostgresOutboxStore',
    () => import('pg'),
    'npm install pg (or pass a pool of your own)',
  );
  const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool;
  const pool = new Pool({ connectionString, max });
  // An idle connection the server ended (a restart, pg_terminate_backend) makes the pool emit
  // 'error'; unheard, that event would end the process. The pool drops the connection and the next
  // query opens another, or reports why it cannot.
  pool.on('error', (error) => {
    logger.warn(
      `webhook outbox: an idle PostgreSQL connection failed (${error.message}); reconnecting on next use`,
    );
  });
  return pool;
}
