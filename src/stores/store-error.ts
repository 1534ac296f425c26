import { IdGovError } from '../core/errors/errors.ts';

/**
 * A database under a store of the SDK's (the outbox's SQLite or PostgreSQL store) failed: the
 * message says what failed and what to check; `code` is the database's own (a PostgreSQL SQLSTATE
 * such as `57P01`, a Node system error such as `ECONNREFUSED`, an SQLite result code), and
 * `transient` tells a failure that passes (a server restarting, a lock held a moment too long)
 * from one that needs a fix. The driver's error is the `cause`.
 *
 * @group Errors
 */
export class StoreError extends IdGovError {
  override name = 'StoreError';
  /** The database's or the system's code, when it gave one. */
  readonly code: string | undefined;
  /** Whether trying again later may succeed (a connection lost, a lock held, a server restarting). */
  readonly transient: boolean;
  constructor(message: string, options: { cause?: unknown; code?: string | undefined; transient: boolean }) {
    super(message, { cause: options.cause });
    this.code = options.code;
    this.transient = options.transient;
  }
}
