/**
 * The PostgreSQL outbox's table, as SQL to run (a migration tool, a DBA) or for the store to run.
 *
 * @module
 */
import { checkedTable, quotedName } from '../stores/postgres.ts';

/** The table's name unless the store's `table` option says. */
export const DEFAULT_TABLE = 'idgov_webhook_outbox';
// The longest suffix of the table's index names, which must fit PostgreSQL's 63 bytes whole.
export const LONGEST_INDEX_SUFFIX = '_expiry';

/**
 * The SQL that creates the outbox table: run it yourself (a migration tool, a DBA), or let
 * {@link PostgresOutboxStore.migrate} run it. Idempotent. Times are Unix milliseconds.
 *
 * @group Outbox
 */
export function postgresOutboxSchema(table: string = DEFAULT_TABLE): string {
  const name = quotedName(checkedTable(table, LONGEST_INDEX_SUFFIX));
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
