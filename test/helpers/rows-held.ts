import type { Pool } from 'pg';

/** How a statement started by {@link whileRowsHeld} ended: `fulfilled`, or its error as text. */
export type Ended = 'fulfilled' | string;

/**
 * Starts each of `statements` in turn, 200 ms apart (time for each to reach the lock it waits
 * for), while a transaction of `pool` holds the rows `lockSql` selects `FOR UPDATE`; then lets
 * them go, and says how each statement ended. What two statements do once a third holds a row
 * both need: they wait for each other in a set order, or deadlock.
 */
export async function whileRowsHeld(
  pool: Pool,
  lockSql: string,
  statements: ReadonlyArray<() => Promise<unknown>>,
): Promise<Ended[]> {
  const blocker = await pool.connect();
  const started: Promise<unknown>[] = [];
  try {
    await blocker.query('BEGIN');
    await blocker.query(lockSql);
    for (const statement of statements) {
      started.push(statement());
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await blocker.query('COMMIT');
  } finally {
    blocker.release();
  }
  const settled = await Promise.allSettled(started);
  return settled.map((s) => (s.status === 'rejected' ? String(s.reason) : s.status));
}
