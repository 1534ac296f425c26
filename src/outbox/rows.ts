import type { OutboxAnswer, OutboxEvent, OutboxState } from './store.ts';

/** An event as the SQL stores hold it: one column per field, times in Unix ms. */
export interface EventRow {
  event_id: string;
  listener: string;
  body: string;
  state: string;
  seq: number | string;
  enqueued_at: number | string;
  expires_at: number | string;
  next_attempt_at: number | string;
  attempts: number | string;
  last_attempt_at: number | string | null;
  last_status: number | string | null;
  last_body: string | null;
  last_error: string | null;
  finished_at: number | string | null;
  lease_token?: string | null;
  leased_at?: number | string | null;
  lease_until?: number | string | null;
}

/** The columns {@link eventFromRow} reads, for SELECT and RETURNING lists. */
export const EVENT_COLUMNS =
  'event_id, listener, body, state, seq, enqueued_at, expires_at, next_attempt_at, attempts, last_attempt_at, last_status, last_body, last_error, finished_at';

/** SQL: whether `column`, an integer, lies past what a JavaScript number holds exactly (2^53). */
export const unsafeIntegerSql = (column: string) =>
  `${column} NOT BETWEEN -${Number.MAX_SAFE_INTEGER} AND ${Number.MAX_SAFE_INTEGER}`;

/**
 * An integer column of SQLite, or the text of one past 2^53: node:sqlite throws a bare `RangeError`
 * reading such a value (a hand edit, a time in µs) as a number, which would stop every read of the
 * row. As text, {@link rowProblem} names it.
 */
export const sqliteWhole = (column: string) =>
  `CASE WHEN typeof(${column}) = 'integer' AND ${unsafeIntegerSql(column)} THEN CAST(${column} AS TEXT) ELSE ${column} END`;

const WHOLE_COLUMNS = ['seq', 'enqueued_at', 'expires_at', 'next_attempt_at', 'attempts'] as const;
const OPTIONAL_WHOLE_COLUMNS = [
  'last_attempt_at',
  'last_status',
  'finished_at',
  'leased_at',
  'lease_until',
] as const;
const INTEGER_COLUMNS: ReadonlySet<string> = new Set([...WHOLE_COLUMNS, ...OPTIONAL_WHOLE_COLUMNS]);

/** `columns` (a list as in {@link EVENT_COLUMNS}) for SQLite's reads: its integers as {@link sqliteWhole} reads them. */
export const sqliteColumns = (columns: string) =>
  columns
    .split(', ')
    .map((column) => (INTEGER_COLUMNS.has(column) ? `${sqliteWhole(column)} AS ${column}` : column))
    .join(', ');

// PostgreSQL's driver returns BIGINT as a string (it may exceed 2^53; Unix ms and sequences do not).
const num = (value: number | string): number => Number(value);
const opt = (value: number | string | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

/** Reads a row of either SQL store. */
export function eventFromRow(row: EventRow): OutboxEvent {
  const lastAnswer: OutboxAnswer | undefined =
    row.last_status === null && row.last_body === null && row.last_error === null
      ? undefined
      : {
          status: opt(row.last_status),
          body: row.last_body ?? undefined,
          error: row.last_error ?? undefined,
        };
  return {
    eventId: row.event_id,
    listener: row.listener,
    body: row.body,
    state: row.state as OutboxState,
    seq: num(row.seq),
    enqueuedAt: num(row.enqueued_at),
    expiresAt: num(row.expires_at),
    nextAttemptAt: num(row.next_attempt_at),
    attempts: num(row.attempts),
    lastAttemptAt: opt(row.last_attempt_at),
    lastAnswer,
    finishedAt: opt(row.finished_at),
    ...damage(row),
  };
}

const damage = (row: EventRow): { damaged?: string } => {
  const problem = rowProblem(row);
  return problem ? { damaged: problem } : {};
};

/** A column value that is an integer a number holds exactly, or the decimal text of one (PostgreSQL's BIGINT). */
function isWhole(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isSafeInteger(value)) ||
    (typeof value === 'string' && /^-?\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value)))
  );
}

function shown(value: unknown): string {
  if (value instanceof Uint8Array) return `a BLOB of ${value.byteLength} bytes`;
  return JSON.stringify(value)?.slice(0, 40) ?? String(value);
}

/**
 * Why a row is not what the outbox wrote (an edited or damaged database), or undefined when it is.
 * Such a row is never sent: a body that is not text would go out as another document.
 */
export function rowProblem(row: EventRow): string | undefined {
  if (typeof row.body !== 'string')
    return `its body is ${shown(row.body)}, not the JSON text the outbox stored`;
  for (const column of WHOLE_COLUMNS) {
    if (!isWhole(row[column])) return `its ${column} is ${shown(row[column])}, not a whole number`;
  }
  for (const column of OPTIONAL_WHOLE_COLUMNS) {
    const value = row[column];
    if (value !== null && value !== undefined && !isWhole(value)) {
      return `its ${column} is ${shown(value)}, not a whole number`;
    }
  }
  return undefined;
}
