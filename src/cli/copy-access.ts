/**
 * How the commands that read a copy (`idgov export`, `idgov changes`) reach it, and write what they
 * read: the store the options name, opened to read, and lines to stdout that wait when it is full.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { ConfigurationError } from '../core/errors/errors.ts';
import type { ChangeFeed } from '../sync/changes.ts';
import type { CopyReader } from '../sync/copy-reader.ts';
import { SqliteSyncStore } from '../sync/sqlite/store.ts';
import { shellWord } from './options.ts';

/** Where a command reads a copy: a SQLite file (`db`) or a PostgreSQL URL (`postgres`, with a table prefix). */
export interface CopyTarget {
  readonly db?: string | undefined;
  readonly postgres?: string | undefined;
  readonly table?: string | undefined;
}

/** A copy opened to read: its rows and its change feed. */
export type OpenCopy = CopyReader & ChangeFeed & { close(): Promise<void> };

/**
 * The copy the options name, opened to read: a SQLite file that does not exist is refused rather
 * than made, and one is opened `readOnly` (a sync may hold it meanwhile).
 */
export async function openToRead(options: CopyTarget): Promise<OpenCopy> {
  if (options.postgres !== undefined) {
    const { PostgresSyncStore } = await import('../sync/postgres/store.ts');
    return new PostgresSyncStore({
      connectionString: options.postgres,
      table: options.table,
      maxConnections: 1,
    });
  }
  const path = options.db ?? '';
  if (!existsSync(path)) {
    throw new ConfigurationError(
      `${path} does not exist: run \`idgov sync --db ${shellWord(path)}\` first, or check the path.`,
    );
  }
  return new SqliteSyncStore({ path, readOnly: true });
}

/**
 * Writes lines to `out`, waiting when it is full; `signal` ends the writing (a follower stopped while
 * its reader does not read: false, at once). With `taken`, called once the OS has taken the line (or
 * with the error its write failed with), it waits for that: one line in flight at a time, so that
 * no write holds several lines the OS may take only part of. A reader gone (EPIPE, `| head`) and a
 * failed write are the program's to handle, for every command's output at once (`runProgram`).
 */
export function lineWriter(
  out: NodeJS.WritableStream,
  signal?: AbortSignal,
): { write(line: string, taken?: (error?: Error | null) => void): Promise<boolean> } {
  return {
    async write(line, taken) {
      if (signal?.aborted) return false;
      await new Promise<void>((resolve) => {
        const go = () => {
          out.off('drain', go);
          out.off('close', go);
          signal?.removeEventListener('abort', go);
          resolve();
        };
        const roomLeft = out.write(
          `${line}\n`,
          taken &&
            ((error) => {
              taken(error);
              go();
            }),
        );
        if (!taken && roomLeft) return resolve();
        if (!taken) out.on('drain', go);
        out.on('close', go);
        signal?.addEventListener('abort', go);
      });
      return !signal?.aborted;
    },
  };
}
