/**
 * Creating a PostgreSQL task copy's tables, from any number of workers at once, while others sync.
 *
 * @module
 */
import { StoreError } from '../core/store-error.ts';
import { wait } from '../internal/wait.ts';
import type { PgQuery } from './postgres-rows.ts';
import { addedColumns, postgresSyncSchema, type SyncTables, syncRelations } from './postgres-schema.ts';

/**
 * Creates the tables, indexes and columns of `t` if any is missing. Creating an index that exists still
 * locks its table, and would wait for (or deadlock with) the workers writing to it: so it looks
 * first, and changes nothing once they are there. An advisory lock keeps first creations from
 * racing; a deadlock with a worker that began writing meanwhile is tried again.
 */
export async function migrateSync(query: PgQuery, t: SyncTables): Promise<void> {
  const relations = syncRelations(t);
  const columns = addedColumns(t);
  for (const pause of [100, 300, 1_000, undefined]) {
    const { rows } = await query<{ ready: boolean }>(
      'migrating',
      `SELECT (SELECT bool_and(to_regclass(name) IS NOT NULL) FROM unnest($1::text[]) AS name)
          AND (SELECT bool_and(EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(c.t)
                                         AND attname = c.col AND NOT attisdropped))
               FROM unnest($2::text[], $3::text[]) AS c(t, col)) AS ready`,
      [relations, columns.map((c) => c.table), columns.map((c) => c.column)],
    );
    if (rows[0]?.ready) return;
    try {
      // One simple query: its statements run as one implicit transaction, which holds the lock to the end.
      const lock = `SELECT pg_advisory_xact_lock(hashtext('idgov sync ${t.prefix}'));`;
      await query('migrating', `${lock}\n${postgresSyncSchema(t.prefix)}`, []);
      return;
    } catch (error) {
      if (!(error instanceof StoreError && error.transient) || pause === undefined) throw error;
      await wait(pause);
    }
  }
}
