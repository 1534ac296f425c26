/**
 * `node:sqlite`'s errors as the SDK's: what a file that cannot be opened, read or written means for
 * the caller, and what to do about it.
 *
 * @internal
 * @module
 */
import { ConfigurationError } from '../core/errors/errors.ts';
import { StoreError } from './store-error.ts';

/** SQLite's primary result codes this SDK tells apart. */
export const SQLITE = {
  BUSY: 5,
  LOCKED: 6,
  READONLY: 8,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
} as const;

/**
 * The primary result code of an error of `node:sqlite`, which gives extended ones
 * (SQLITE_CORRUPT_INDEX, SQLITE_READONLY_DBMOVED...) with the primary code in the low byte.
 */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

/** Whether `error` of `node:sqlite` says the file is no database, or a damaged one. */
export function isDamaged(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === SQLITE.NOTADB || code === SQLITE.CORRUPT;
}

/**
 * Whether `error` is SQLite's refusal to write where the file is, which a reader in WAL mode must
 * (a read-only directory or file, or a read-only mount, where the -shm file cannot be opened).
 */
export function isReadOnlyPlace(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === SQLITE.READONLY || code === SQLITE.CANTOPEN;
}

/** Whether `error` of `node:sqlite` is another connection's lock, waited for past the busy timeout. */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === SQLITE.BUSY || code === SQLITE.LOCKED;
}

/**
 * A failure on the file at `path`, which holds the `holds` (`outbox`, `task copy`): a file that
 * cannot be opened or written is the caller's setup, not a crash, so it says which and what to do.
 */
export function explainedSqliteError(error: unknown, path: string, holds: string): unknown {
  const code = sqliteCode(error);
  const why = (error as Error)?.message;
  if (code === SQLITE.READONLY) {
    return new ConfigurationError(
      `The ${holds} file ${path} is read-only (${why}): give this process write access to it and to its directory (SQLite writes ${path}-wal and ${path}-shm beside it), or choose another path.`,
      { cause: error },
    );
  }
  if (code === SQLITE.CANTOPEN) {
    return new ConfigurationError(
      `Cannot open the ${holds} file ${path} (${why}): check that its directory exists and this process may write there.`,
      { cause: error },
    );
  }
  if (isDamaged(error)) {
    return new ConfigurationError(
      `The file ${path} is not a SQLite database, or is damaged (${why}): point the ${holds} at another path (or restore this file from a backup).`,
      { cause: error },
    );
  }
  if (code === undefined) return error;
  const extended = String((error as { errcode: number }).errcode);
  if (code === SQLITE.FULL) {
    return new StoreError(
      `SQLite could not write the ${holds} file ${path}: ${why}. Free space on its disk (or move the file to a larger one), then try again: what was committed is kept.`,
      { cause: error, code: extended, transient: false },
    );
  }
  return new StoreError(`SQLite failed on the ${holds} file ${path}: ${why}.`, {
    cause: error,
    code: extended,
    transient: false,
  });
}
