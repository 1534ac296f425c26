/**
 * A table a read needs is missing: said as what it most likely means. No tasks table under the
 * prefix is no copy there (a mistyped `--table`, a copy never made), not a store to migrate.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/errors.ts';
import type { PgQuery } from './rows.ts';
import type { SyncTables } from './schema.ts';

/**
 * `error` said better when a table was missing (PostgreSQL's 42P01): no copy under the prefix,
 * or else what `missingOnly` says of a copy without that table alone. Any other error as it came.
 */
export async function missingTable(
  query: PgQuery,
  t: SyncTables,
  error: unknown,
  missingOnly?: (cause: unknown) => Error,
): Promise<unknown> {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code !== '42P01') return error;
  const { rows } = await query<{ copy: boolean }>(
    'looking for the copy',
    'SELECT to_regclass($1) IS NOT NULL AS copy',
    [t.tasks],
  ).catch(() => ({ rows: [] as Array<{ copy: boolean }> }));
  if (rows[0]?.copy === false) {
    return new ConfigurationError(
      `There is no task copy under the prefix ${t.prefix} (no table ${t.tasks}): check the prefix (the store's table option, idgov's --table).`,
      { cause: error },
    );
  }
  return missingOnly?.(error) ?? error;
}
