/**
 * PostgreSQL's and the `pg` driver's errors as the SDK's: a {@link ConfigurationError} where the
 * fix is the caller's (a missing table, a missing permission, a wrong password), a
 * {@link StoreError} otherwise, saying whether it passes. Never the driver's raw error.
 *
 * @internal
 * @module
 */
import { ConfigurationError } from '../core/errors/errors.ts';
import { StoreError } from './store-error.ts';

// SQLSTATE classes that pass: connection exceptions, insufficient resources, operator intervention
// (a shutdown or restart), and serialization failures or deadlocks.
const TRANSIENT_CLASSES = ['08', '53', '57'];
const TRANSIENT_CODES = new Set(['40001', '40P01', '55P03']);
// Of class 08 (connection exceptions), what a statement the server could not take causes: trying
// it again changes nothing. A pooler's own failures (PgBouncer's "server conn crashed?") share the
// code 08P01, and pass.
const MALFORMED_MESSAGE = /^(bind message|insufficient data|invalid message format)/i;
// pg's own message when a statement outlives the pool's query_timeout (the store's queryTimeoutMs).
const QUERY_TIMED_OUT = /^Query read timeout/;
const UNANSWERED =
  'no answer came within the query timeout, and the connection was dropped: the network or the server is down or half-open, or the statement takes that long (then raise queryTimeoutMs, query_timeout=MS in the connection URL, or the query_timeout of a pool of your own), and the server may still carry it out';
const SYSTEM_CODES = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH)$/;

/**
 * The SDK's error for a failure of `what` (e.g. `claiming events`) on `table`; `schemaSql` names
 * the function whose SQL creates the table (`postgresOutboxSchema()`).
 */
export function postgresError(error: unknown, what: string, table: string, schemaSql: string): Error {
  if (error instanceof ConfigurationError || error instanceof StoreError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const text = String((error as Error)?.message ?? error).slice(0, 300);
  const sqlState = typeof code === 'string' ? code : undefined;
  if (sqlState === 'ERR_INVALID_URL') {
    // pg's error leaves the URL out (it may hold a password), and so does this one.
    return new ConfigurationError(
      `The PostgreSQL connection URL of ${table} is not one pg can read (${text}): give it as postgres://user:password@host:5432/database, with any special character of the password percent-encoded.`,
      { cause: error },
    );
  }
  if (/does not support SSL/i.test(text)) {
    return new ConfigurationError(
      `PostgreSQL refused ${what} on ${table} over SSL (${text}): drop sslmode=require from the connection URL, or enable SSL on the server.`,
      { cause: error },
    );
  }
  if (sqlState === '42P01') {
    return new ConfigurationError(
      `PostgreSQL has no table ${table} (${text}): check its name (idgov's --table), or, for a new store, run store.migrate() once, or the SQL of ${schemaSql}, before using the store.`,
      { cause: error },
    );
  }
  if (sqlState === '42703') {
    return new ConfigurationError(
      `PostgreSQL's ${table} lacks a column this SDK uses (${text}): its tables were made by an earlier release, or by hand. Bring them to what the SQL of ${schemaSql} makes (a task copy's store.migrate() adds what is missing).`,
      { cause: error },
    );
  }
  if (sqlState === '3F000') {
    const schema = table.includes('.') ? table.slice(0, table.lastIndexOf('.')) : undefined;
    return new ConfigurationError(
      schema
        ? `PostgreSQL has no schema ${schema} for ${table} (${text}): create it (CREATE SCHEMA ${schema}), or leave the schema out of the table prefix.`
        : `PostgreSQL has no schema to put ${table} in (${text}): create the schema the connection's search_path names, or give the table prefix as schema.prefix.`,
      { cause: error },
    );
  }
  if (sqlState === '42501' || sqlState === '28P01' || sqlState === '28000' || sqlState === '3D000') {
    return new ConfigurationError(
      `PostgreSQL refused ${what} on ${table} (${text}, SQLSTATE ${sqlState}): check the connection's user, password, database and grants.`,
      { cause: error },
    );
  }
  const transient =
    (sqlState !== undefined &&
      ((TRANSIENT_CLASSES.includes(sqlState.slice(0, 2)) &&
        !(sqlState === '08P01' && MALFORMED_MESSAGE.test(text))) ||
        TRANSIENT_CODES.has(sqlState) ||
        SYSTEM_CODES.test(sqlState))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(text) ||
    QUERY_TIMED_OUT.test(text);
  const advice = transient
    ? `${QUERY_TIMED_OUT.test(text) ? UNANSWERED : passingCause(sqlState)}: it may pass (the outbox and the sync wait a while for it to)`
    : "the error's cause holds the statement that failed";
  return new StoreError(
    `PostgreSQL failed ${what} on ${table}: ${text}${sqlState ? ` (${sqlState})` : ''}; ${advice}.`,
    {
      cause: error,
      code: sqlState,
      transient,
    },
  );
}

/** What a transient failure of `sqlState` says is wrong, so that an operator knows what to look at. */
function passingCause(sqlState: string | undefined): string {
  if (sqlState === '53300') {
    return 'the server has no connection left (max_connections): run fewer workers or cursors (concurrency), put a pooler (PgBouncer) in front, or raise max_connections';
  }
  if (sqlState === '53100') return 'the server is out of disk space: free some, or grow its volume';
  if (sqlState === '57014') return 'a statement ran past its statement_timeout, or was cancelled';
  if (sqlState === 'ENOTFOUND') {
    return 'the host name does not resolve: check it in the connection URL (or DNS, if it is down)';
  }
  if (sqlState?.startsWith('53')) return 'the server is short of resources (memory, disk, connections)';
  if (sqlState === '40001' || sqlState === '40P01' || sqlState === '55P03') {
    return 'a concurrent transaction conflicted with this one';
  }
  return 'the server is unreachable or restarting';
}
