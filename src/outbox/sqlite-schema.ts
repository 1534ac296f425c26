/**
 * The SQLite outbox's table, and what in a row only something other than the outbox would write.
 *
 * @module
 */

import { unsafeIntegerSql } from './rows.ts';

// Values SQLite would store in these columns only if something other than the outbox wrote them.
export const MALFORMED = `(typeof(body) <> 'text' OR typeof(enqueued_at) <> 'integer' OR typeof(expires_at) <> 'integer'
  OR typeof(next_attempt_at) <> 'integer' OR typeof(attempts) <> 'integer'
  OR ${['enqueued_at', 'expires_at', 'next_attempt_at', 'attempts'].map(unsafeIntegerSql).join(' OR ')})`;
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS idgov_webhook_outbox (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id        TEXT    NOT NULL UNIQUE,
  listener        TEXT    NOT NULL,
  body            TEXT    NOT NULL,
  state           TEXT    NOT NULL DEFAULT 'pending',
  enqueued_at     INTEGER NOT NULL,
  expires_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_attempt_at INTEGER,
  last_status     INTEGER,
  last_body       TEXT,
  last_error      TEXT,
  finished_at     INTEGER,
  lease_token     TEXT,
  leased_at       INTEGER,
  lease_until     INTEGER
);
CREATE INDEX IF NOT EXISTS idgov_webhook_outbox_queue ON idgov_webhook_outbox (listener, state, seq);
CREATE INDEX IF NOT EXISTS idgov_webhook_outbox_expiry ON idgov_webhook_outbox (listener, state, expires_at);
CREATE INDEX IF NOT EXISTS idgov_webhook_outbox_leases ON idgov_webhook_outbox (lease_token) WHERE lease_token IS NOT NULL;
`;
