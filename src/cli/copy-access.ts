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
      `${path} does not exist: run \`idgov sync --db ${path}\` first, or check the path.`,
    );
  }
  return new SqliteSyncStore({ path, readOnly: true });
}

/**
 * Writes lines to `out`, waiting when it is full; a reader gone (EPIPE, `| head`) ends the writing
 * quietly, as does `signal` (a follower stopped while its reader does not read: false, at once).
 */
export function lineWriter(
  out: NodeJS.WritableStream,
  signal?: AbortSignal,
): { write(line: string): Promise<boolean> } {
  let failed: (Error & { code?: string }) | undefined;
  const onError = (error: Error) => {
    failed = error;
  };
  // Kept after the export too: an EPIPE reported late must not end the process as an unhandled 'error'.
  out.on('error', onError);
  const check = () => {
    if (failed && failed.code !== 'EPIPE') {
      throw new Error(
        `writing the output failed (${failed.code ?? failed.message}): check where it goes (a full disk?).`,
      );
    }
    return failed === undefined;
  };
  return {
    async write(line) {
      if (!check() || signal?.aborted) return false;
      if (!out.write(`${line}\n`)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            out.off('drain', go);
            out.off('error', go);
            out.off('close', go);
            signal?.removeEventListener('abort', go);
            resolve();
          };
          out.on('drain', go);
          out.on('error', go);
          out.on('close', go);
          signal?.addEventListener('abort', go);
        });
      }
      return check() && !signal?.aborted;
    },
  };
}
