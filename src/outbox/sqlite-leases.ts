/**
 * The SQLite outbox's leases held by processes of this machine that are gone: freed, so that their
 * events are due again at once rather than a lease later.
 *
 * @module
 */
import type { Logger } from '../core/logger.ts';
import { FREE_SQL } from '../stores/lease.ts';
import { goneFromThisMachine } from '../stores/local-process.ts';
import type { SqliteFile } from '../stores/sqlite-file.ts';

/** Frees the leases held by processes of this machine that are gone (killed mid-attempt); inside the caller's write. */
export function freeGoneHolders(file: SqliteFile, logger: Logger): void {
  const holders = file
    .sql('SELECT DISTINCT lease_token FROM idgov_webhook_outbox WHERE lease_token IS NOT NULL')
    .all() as Array<{ lease_token: string }>;
  const free = file.sql(`UPDATE idgov_webhook_outbox SET ${FREE_SQL} WHERE lease_token = ?`);
  for (const { lease_token: holder } of holders) {
    if (!goneFromThisMachine(holder)) continue;
    const { changes } = free.run(holder);
    logger.warn(
      `webhook outbox: ${holder.split('/')[0]}, which held ${changes} event(s) of ${file.path}, is gone: they are due again at once`,
    );
  }
}
