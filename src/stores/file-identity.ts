/**
 * Which file a path named when a store opened it (its device and inode), to tell when another file,
 * or none, stands there now: SQLite in WAL mode goes on writing to a file deleted or replaced under
 * it (a restore from a backup, a clean-up script), and every write after that is lost.
 *
 * @module
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StoreError } from './store-error.ts';

/** The file a path named at open, and how to ask whether it still does. */
export class FileIdentity {
  readonly #path: string;
  readonly #dev: number;
  readonly #ino: number;

  private constructor(path: string, dev: number, ino: number) {
    this.#path = path;
    this.#dev = dev;
    this.#ino = ino;
  }

  /**
   * The identity of the file at `path` now; undefined for what names no file of its own (an
   * in-memory database, a `file:` URI) or a path with nothing there.
   */
  static of(path: string): FileIdentity | undefined {
    if (path === '' || path === ':memory:' || path.startsWith('file:')) return undefined;
    // Absolute, so that a process that changes its directory still looks at the same place.
    const absolute = resolve(path);
    const stats = statSync(absolute, { throwIfNoEntry: false });
    return stats ? new FileIdentity(absolute, stats.dev, stats.ino) : undefined;
  }

  /** A {@link StoreError} naming `holds` when the path no longer leads to the file opened; else undefined. */
  moved(holds: string): StoreError | undefined {
    const now = statSync(this.#path, { throwIfNoEntry: false });
    if (now && now.dev === this.#dev && now.ino === this.#ino) return undefined;
    const what = now ? 'replaced by another file' : 'deleted or moved';
    const error = new StoreError(
      `The ${holds} file ${this.#path} was ${what} while this store had it open, so it stops: it would go on writing to, or reading from, a file no one else sees. Find out what ${now ? 'replaced' : 'removed'} it, then open the store again.`,
      { transient: false },
    );
    return Object.assign(error, { reason: FILE_MOVED });
  }
}

const FILE_MOVED = 'file moved';

/**
 * Whether `error` says the store's file was deleted, moved or replaced under it: every later call of
 * that store fails alike, until it is opened again. Told apart also once it crossed from a store's
 * thread (its own fields cross with it).
 */
export const isFileMoved = (error: unknown): boolean =>
  error instanceof StoreError && (error as { reason?: unknown }).reason === FILE_MOVED;
