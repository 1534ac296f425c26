import { existsSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { ConfigurationError } from '../core/errors/errors.ts';
import { isDamaged } from '../stores/sqlite-file.ts';

/** What `idgov export` takes. */
export interface ExportCommandOptions {
  readonly db: string;
  readonly format: 'ndjson' | 'csv';
}

const CSV_COLUMNS = [
  'id',
  'state',
  'created_at',
  'updated_at',
  'deleted_at',
  'vanished',
  'synced_at',
] as const;

/** A CSV field, quoted when it must be (RFC 4180). */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The copy at `path`, opened to read; what is wrong with the path, said with its fix, otherwise. */
function openCopy(path: string): DatabaseSync {
  if (!existsSync(path)) {
    throw new ConfigurationError(
      `${path} does not exist: run \`idgov sync --db ${path}\` first, or check the path.`,
    );
  }
  if (statSync(path).isDirectory()) {
    throw new ConfigurationError(`${path} is a directory: name the SQLite file of the copy in it.`);
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.prepare('SELECT 1 FROM idgov_tasks LIMIT 1').get();
    return db;
  } catch (error) {
    db?.close();
    throw new ConfigurationError(
      isDamaged(error)
        ? `${path} is not a SQLite file, or is damaged (${(error as Error).message}): check the path.`
        : `${path} is a SQLite file but no task copy (${(error as Error).message}): check the path, or run \`idgov sync --db ${path}\` to make one.`,
      { cause: error },
    );
  }
}

/** Writes lines to `out`, waiting when it is full; a reader gone (EPIPE, `| head`) ends the writing quietly. */
function lineWriter(out: NodeJS.WritableStream): { write(line: string): Promise<boolean> } {
  let failed: (Error & { code?: string }) | undefined;
  const onError = (error: Error) => {
    failed = error;
  };
  // Kept after the export too: an EPIPE reported late must not end the process as an unhandled 'error'.
  out.on('error', onError);
  const check = () => {
    if (failed && failed.code !== 'EPIPE') {
      throw new Error(
        `writing the export failed (${failed.code ?? failed.message}): check where it goes (a full disk?).`,
      );
    }
    return failed === undefined;
  };
  return {
    async write(line) {
      if (!check()) return false;
      if (!out.write(`${line}\n`)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            out.off('drain', go);
            out.off('error', go);
            out.off('close', go);
            resolve();
          };
          out.on('drain', go);
          out.on('error', go);
          out.on('close', go);
        });
      }
      return check();
    },
  };
}

/**
 * `idgov export`: the copy's tasks to stdout, oldest first: NDJSON (each task's JSON as the service
 * sent it, one a line) or CSV (the documented columns but `task`). Rows stream, so a large copy
 * needs no memory; a reader that stops early (`| head`) ends it quietly.
 */
export async function exportCommand(
  options: ExportCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const db = openCopy(options.db);
  const lines = lineWriter(out);
  try {
    if (options.format === 'csv' && !(await lines.write(CSV_COLUMNS.join(',')))) return;
    const rows = db
      .prepare(`SELECT ${CSV_COLUMNS.join(', ')}, task FROM idgov_tasks ORDER BY created_at, id`)
      .iterate();
    for (const row of rows as Iterable<Record<string, unknown>>) {
      const line =
        options.format === 'csv' ? CSV_COLUMNS.map((c) => csvField(row[c])).join(',') : String(row.task);
      if (!(await lines.write(line))) return;
    }
  } finally {
    db.close();
  }
}
