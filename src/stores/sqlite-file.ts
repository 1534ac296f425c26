/**
 * One SQLite file through `node:sqlite` (Node 22.5+, no native dependency), as the SDK's stores
 * keep it: WAL mode with `synchronous = FULL`, prepared statements cached, one write transaction
 * at a time per connection, and SQLite's failures turned into the SDK's errors.
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ConfigurationError } from '../core/errors/errors.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { FileIdentity } from './file-identity.ts';
import { nodeSqlite } from './node-sqlite.ts';
import { explainedSqliteError, isBusy } from './sqlite-errors.ts';
import { StoreError } from './store-error.ts';

/** Options of {@link SqliteFile}. */
export interface SqliteFileOptions {
  /** The database file; created if missing. */
  readonly path: string;
  /** How long to wait for another connection's write lock, in ms. Default 5,000. */
  readonly busyTimeoutMs?: number | undefined;
  /** What the file holds, for messages: `outbox`, `task copy`. */
  readonly holds: string;
  /** `CREATE ... IF NOT EXISTS` statements, run on open. */
  readonly schema: string;
  /**
   * `FULL`: every commit is on disk before it returns, and survives power loss (the outbox: a
   * commit there is a promise to the caller). `NORMAL`: every commit survives a killed process, and
   * power loss may undo the last ones, whole: for a store whose every commit can be made again (a
   * sync's page and its checkpoint, fetched again). Default `FULL`.
   */
  readonly synchronous?: 'FULL' | 'NORMAL' | undefined;
  /**
   * Opens an existing file to read only: nothing is created or written (`schema` and the journal
   * mode are left as they are), and a missing file, or a directory, is refused with what to do.
   */
  readonly readOnly?: boolean | undefined;
  /**
   * The page size, in bytes, of a file this creates (a file that exists keeps its own). SQLite's
   * 4 KiB pages hold one row of a couple of KiB where two would fit in 8 KiB: a file of such rows
   * writes each page nearly half empty. Default SQLite's.
   */
  readonly pageSize?: 8192 | 16384 | undefined;
  /**
   * A flag another thread sets to 1 when the file's owner stops (`Atomics.store(stop, 0, 1)`): a
   * write waiting for another connection's lock then gives up within `STOP_CHECK_MS`, where
   * SQLite's own wait would hold this thread for the rest of `busyTimeoutMs`.
   */
  readonly stop?: Int32Array | undefined;
}

/** How often a write waiting for another connection's lock looks at its `stop` flag, in ms. */
const STOP_CHECK_MS = 100;

/**
 * An open SQLite file in WAL mode, as durable as its `synchronous` option says (a commit is always
 * whole or absent, never half). Several processes may open one file (on a local disk, not a network
 * share): a writer waits up to `busyTimeoutMs` for another.
 */
export class SqliteFile {
  /** The file's path. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #holds: string;
  readonly #statements = new Map<string, StatementSync>();
  readonly #busyMs: number;
  readonly #stop: Int32Array | undefined;
  readonly #identity: FileIdentity | undefined;

  constructor(options: SqliteFileOptions) {
    this.#holds = options.holds;
    if (typeof options?.path !== 'string' || options.path === '') {
      throw new ConfigurationError(
        `path must name the SQLite file of the ${options.holds}, e.g. "${options.holds.replace(' ', '-')}.db".`,
      );
    }
    const busy = options.busyTimeoutMs ?? 5_000;
    if (wholeNumberProblem(busy, 0)) {
      throw new ConfigurationError(`busyTimeoutMs must be a whole number of ms (got ${busy}).`);
    }
    this.path = options.path;
    this.#busyMs = busy;
    this.#stop = options.stop;
    if (options.readOnly && !existsSync(options.path)) {
      throw new ConfigurationError(
        `The ${options.holds} file ${options.path} does not exist: check the path.`,
      );
    }
    if (existsSync(options.path) && statSync(options.path).isDirectory()) {
      throw new ConfigurationError(
        `${options.path} is a directory: name the SQLite file of the ${options.holds} in it.`,
      );
    }
    const { DatabaseSync } = nodeSqlite(`The SQLite ${options.holds}`);
    try {
      this.#db = new DatabaseSync(options.path, { readOnly: options.readOnly === true });
    } catch (error) {
      throw this.#explained(error);
    }
    this.#identity = FileIdentity.of(options.path);
    if (options.readOnly) {
      this.#db.exec(`PRAGMA busy_timeout = ${busy}`);
      return;
    }
    try {
      // With a stop flag, a wait for a lock goes in slices, looking at the flag between them (#patiently).
      this.#db.exec(`PRAGMA busy_timeout = ${this.#stop ? Math.min(busy, STOP_CHECK_MS) : busy}`);
      // Before the journal mode: a file in WAL mode keeps its page size.
      if (options.pageSize) this.#db.exec(`PRAGMA page_size = ${options.pageSize}`);
      const mode = this.#patiently(
        () => this.#db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string },
        'give up',
      );
      if (mode.journal_mode !== 'wal' && options.path !== ':memory:') {
        throw new ConfigurationError(`Could not put ${options.path} in WAL mode (got ${mode.journal_mode}).`);
      }
      this.#db.exec(`PRAGMA synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
      // Statements that make what is missing (IF NOT EXISTS): a try cut short by a lock is made again whole.
      this.#patiently(() => this.#db.exec(options.schema), 'give up');
    } catch (error) {
      this.#db.close();
      throw this.#explained(error);
    }
  }

  /** The prepared statement for `sql`, prepared once. */
  sql(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `work` in one write transaction, taking the write lock first so two writers cannot
   * interleave. Once the `stop` flag is set, a wait for another connection's lock gives up, unless
   * `whenStopping` is `wait`: what lets go of something held (a hold on the file) must still be done.
   */
  write<T>(work: () => T, whenStopping: 'give up' | 'wait' = 'give up'): T {
    this.#stillTheFile();
    try {
      this.#patiently(() => this.#db.exec('BEGIN IMMEDIATE'), whenStopping);
    } catch (error) {
      throw this.failed(error, 'starting a write');
    }
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw this.failed(error, 'writing');
    }
  }

  /** Runs `work`, which only reads, with its failures explained. */
  read<T>(work: () => T): T {
    this.#stillTheFile();
    try {
      return this.#patiently(work, 'give up');
    } catch (error) {
      throw this.failed(error, 'reading');
    }
  }

  /** Runs `work`, which reads several times, on one snapshot of the file (a read transaction). */
  snapshot<T>(work: () => T): T {
    return this.read(() => {
      this.#db.exec('BEGIN');
      try {
        return work();
      } finally {
        this.#db.exec('COMMIT');
      }
    });
  }

  /**
   * Runs `attempt`, which outside a transaction may meet another connection's lock: with a `stop`
   * flag, SQLite waits a slice at a time, and this tries again until `busyTimeoutMs`, looking at
   * the flag between slices; without one, SQLite's own wait was the whole of it.
   */
  #patiently<T>(attempt: () => T, whenStopping: 'give up' | 'wait'): T {
    const until = performance.now() + this.#busyMs;
    for (;;) {
      try {
        return attempt();
      } catch (error) {
        if (!this.#stop || !isBusy(error) || performance.now() >= until) throw error;
        if (whenStopping === 'give up' && Atomics.load(this.#stop, 0) === 1) {
          throw new StoreError(
            `SQLite ${this.path}: the store is stopping, and gave up waiting for another connection's lock.`,
            { cause: error, code: String((error as { errcode?: unknown }).errcode), transient: true },
          );
        }
      }
    }
  }

  /** Runs statements without parameters (a migration's), inside the caller's write. */
  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** Runs one statement outside a transaction, with its failures explained. */
  run(sql: string, ...values: Array<string | number | null>): { changes: number | bigint } {
    this.#stillTheFile();
    try {
      return this.#patiently(() => this.sql(sql).run(...values), 'give up');
    } catch (error) {
      throw this.failed(error, 'writing');
    }
  }

  /**
   * The SDK's error for a failure while `what`: a lock held by another connection past
   * busyTimeoutMs is a transient {@link StoreError}; a file that cannot be opened or written, a
   * {@link ConfigurationError}.
   */
  failed(error: unknown, what: string): unknown {
    if (!isBusy(error)) return this.#explained(error);
    const code = (error as { errcode: number }).errcode;
    return new StoreError(
      `SQLite ${what} ${this.path} waited ${this.#busyMs} ms (busyTimeoutMs) for another connection's lock (${(error as Error).message}): another process is writing the ${this.#holds} (or a tool holds a transaction open on it); try again once it is done, or raise the store's busyTimeoutMs.`,
      { cause: error, code: String(code), transient: true },
    );
  }

  /** Throws when the path no longer leads to the file opened (deleted, or replaced). */
  #stillTheFile(): void {
    const moved = this.#identity?.moved(this.#holds);
    if (moved) throw moved;
  }

  /** Closes the file; a second call does nothing. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #explained(error: unknown): unknown {
    return explainedSqliteError(error, this.path ?? '', this.#holds);
  }
}
