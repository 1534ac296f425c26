/**
 * Creating a store's PostgreSQL tables from any number of workers at once, while others write.
 *
 * @module
 */
import { wait } from '../internal/wait.ts';
import type { PostgresConnection } from './postgres.ts';
import { StoreError } from './store-error.ts';

/** What a store's schema creates, and the SQL that creates it. */
export interface StoreSchema {
  /** Names the lock of this schema's creation: two stores of the same tables share it. */
  readonly lockKey: string;
  /** Every table and index the SQL creates, as `to_regclass` reads names. */
  readonly relations: readonly string[];
  /** Columns a later version added to a table that may exist without them. */
  readonly columns?: ReadonlyArray<{ readonly table: string; readonly column: string }>;
  /** The idempotent SQL (`CREATE ... IF NOT EXISTS`) that creates whatever is missing. */
  readonly sql: string;
}

/**
 * Creates what `schema` names if any of it is missing. Creating an index that exists still locks its
 * table, and would wait for (or deadlock with) the workers writing to it: so it looks first, and
 * changes nothing once everything is there. An advisory lock keeps first creations from racing; a
 * deadlock with a worker that began writing meanwhile (a transient failure) is tried again.
 */
export async function migrateLocked(db: PostgresConnection, schema: StoreSchema): Promise<void> {
  const columns = schema.columns ?? [];
  for (const pause of [100, 300, 1_000, undefined]) {
    const { rows } = await db.query<{ ready: boolean }>(
      'migrating',
      `SELECT (SELECT bool_and(to_regclass(name) IS NOT NULL) FROM unnest($1::text[]) AS name)
          AND coalesce((SELECT bool_and(EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(c.t)
                                         AND attname = c.col AND NOT attisdropped))
               FROM unnest($2::text[], $3::text[]) AS c(t, col)), true) AS ready`,
      [[...schema.relations], columns.map((c) => c.table), columns.map((c) => c.column)],
    );
    if (rows[0]?.ready) return;
    try {
      // One simple query: its statements run as one implicit transaction, which holds the lock to the end.
      const lock = `SELECT pg_advisory_xact_lock(hashtext(${literal(schema.lockKey)}));`;
      await db.query('migrating', `${lock}\n${schema.sql}`, []);
      return;
    } catch (error) {
      if (!(error instanceof StoreError && error.transient) || pause === undefined) throw error;
      await wait(pause);
    }
  }
}

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
