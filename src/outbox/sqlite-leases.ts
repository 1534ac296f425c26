/**
 * The SQLite outbox's leases held by processes of this machine that are gone: freed, so that their
 * events are due again at once rather than a lease later, by a claim now and then and by `retry`.
 *
 * @module
 */
import type { Logger } from '../core/logger.ts';
import { FREE_SQL, notHeldSql } from '../stores/lease.ts';
import { goneFromThisMachine } from '../stores/local-process.ts';
import type { SqliteFile } from '../stores/sqlite-file.ts';
import { EVENT_COLUMNS, type EventRow, rowProblem, sqliteColumns } from './rows.ts';
import { COUNT_UNRECORDED_SQL } from './unrecorded-attempt.ts';

/** Frees the leases held by processes of this machine that are gone (killed mid-attempt); inside the caller's write. */
export function freeGoneHolders(file: SqliteFile, logger: Logger): void {
  const holders = file
    .sql('SELECT DISTINCT lease_token FROM idgov_webhook_outbox WHERE lease_token IS NOT NULL')
    .all() as Array<{ lease_token: string }>;
  const free = file.sql(
    `UPDATE idgov_webhook_outbox SET ${COUNT_UNRECORDED_SQL}, ${FREE_SQL} WHERE lease_token = ?`,
  );
  for (const { lease_token: holder } of holders) {
    if (!goneFromThisMachine(holder)) continue;
    const { changes } = free.run(holder);
    logger.warn(
      `webhook outbox: ${holder.split('/')[0]}, which held ${changes} event(s) of ${file.path}, is gone: they are due again at once`,
    );
  }
}

/** `SqliteOutboxStore.retry()`, inside the caller's write. */
export function retryEvent(file: SqliteFile, logger: Logger, eventId: string, now: number): boolean {
  const row = file
    .sql(`SELECT ${sqliteColumns(EVENT_COLUMNS)}, lease_token FROM idgov_webhook_outbox WHERE event_id = ?`)
    .get(eventId) as EventRow | undefined;
  // A damaged row (edited by hand, say) would only be buried again by the next claim: refused, the
  // retry says so (see retryRefusal). Judged as the retry would leave it: due now, not finished.
  if (!row || rowProblem({ ...row, next_attempt_at: now, finished_at: null })) return false;
  // A lease of a process of this machine that is gone holds nothing: no attempt is in flight.
  if (row.lease_token && goneFromThisMachine(row.lease_token)) freeGoneHolders(file, logger);
  const { changes } = file
    .sql(
      `UPDATE idgov_webhook_outbox SET state = 'pending', next_attempt_at = ?, finished_at = NULL,
         ${COUNT_UNRECORDED_SQL}, ${FREE_SQL}
       WHERE event_id = ? AND state IN ('dead', 'pending') AND expires_at > ? AND ${notHeldSql('?', '?')}`,
    )
    .run(now, eventId, now, now, now);
  return changes > 0;
}
