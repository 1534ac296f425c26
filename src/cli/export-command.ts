import { DatabaseSync } from 'node:sqlite';
import { ConfigurationError } from '../core/errors.ts';

/** What `idgov export` takes. */
export interface ExportCommandOptions {
  readonly db: string;
  readonly format: 'ndjson' | 'csv';
}

const CSV_COLUMNS = ['id', 'state', 'created_at', 'updated_at', 'deleted_at', 'synced_at'] as const;

/** A CSV field, quoted when it must be (RFC 4180). */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `idgov export`: the copy's tasks to stdout, oldest first: NDJSON (each task's JSON as the service
 * sent it, one a line) or CSV (the documented columns). Rows stream, so a large copy needs no memory.
 */
export async function exportCommand(
  options: ExportCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(options.db, { readOnly: true });
    db.prepare('SELECT 1 FROM idgov_tasks LIMIT 1').get();
  } catch (error) {
    throw new ConfigurationError(
      `${options.db} is no task copy (${(error as Error).message}): run \`idgov sync --db ${options.db}\` first.`,
      { cause: error },
    );
  }
  try {
    const write = (line: string) =>
      out.write(`${line}\n`)
        ? Promise.resolve()
        : new Promise<void>((resolve) => out.once('drain', () => resolve()));
    if (options.format === 'csv') await write(CSV_COLUMNS.join(','));
    const rows = db
      .prepare(`SELECT ${CSV_COLUMNS.join(', ')}, task FROM idgov_tasks ORDER BY created_at, id`)
      .iterate();
    for (const row of rows as Iterable<Record<string, unknown>>) {
      await write(
        options.format === 'csv' ? CSV_COLUMNS.map((c) => csvField(row[c])).join(',') : String(row.task),
      );
    }
  } finally {
    db.close();
  }
}
