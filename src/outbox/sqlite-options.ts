/**
 * The options of the SQLite outbox store, and their names (unknown ones are refused).
 *
 * @module
 */
import type { Logger, LogLevel } from '../core/logger.ts';
import { optionKeys } from '../internal/known-options.ts';

/**
 * Options of {@link SqliteOutboxStore}.
 *
 * @group Outbox
 */
export interface SqliteOutboxStoreOptions {
  /** The database file; created with its table if missing. */
  readonly path: string;
  /** How long to wait for another process's write to finish, in ms. Default 5,000. */
  readonly busyTimeoutMs?: number | undefined;
  /** Where a row found damaged (and so marked dead) is reported, at `warn`. Default: every level to `console.error` (stderr). */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn`. */
  readonly logLevel?: LogLevel | undefined;
}

/** The names of {@link SqliteOutboxStoreOptions}. */
export const SQLITE_OUTBOX_OPTIONS = optionKeys<SqliteOutboxStoreOptions>()([
  'path',
  'busyTimeoutMs',
  'logger',
  'logLevel',
]);
