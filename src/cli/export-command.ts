import { existsSync } from 'node:fs';
import { ConfigurationError } from '../core/errors/errors.ts';
import type { CopyReader, CopyRecord } from '../sync/copy-reader.ts';
import { SqliteSyncStore } from '../sync/sqlite/store.ts';

/** What `idgov export` takes: a SQLite file (`db`) or a PostgreSQL URL (`postgres`, with a table prefix). */
export interface ExportCommandOptions {
  readonly db?: string | undefined;
  readonly postgres?: string | undefined;
  readonly table?: string | undefined;
  readonly format: 'ndjson' | 'csv';
}

// The documented columns but `task`, and how each is read from a row of the copy.
const CSV_COLUMNS: ReadonlyArray<readonly [string, (row: CopyRecord) => unknown]> = [
  ['id', (row) => row.id],
  ['state', (row) => row.state],
  ['created_at', (row) => row.createdAt],
  ['updated_at', (row) => row.updatedAt],
  ['deleted_at', (row) => row.deletedAt],
  ['vanished', (row) => (row.vanished ? 1 : 0)],
  ['synced_at', (row) => row.syncedAt],
];

/** A CSV field, quoted when it must be (RFC 4180). */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The copy the options name, opened to read. */
async function readerOf(options: ExportCommandOptions): Promise<CopyReader & { close(): Promise<void> }> {
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
 * `idgov export`: the copy's tasks to stdout, oldest first, through the store's reader: NDJSON (each
 * task's JSON, one a line) or CSV (the documented columns but `task`). Rows stream, so a large copy
 * needs no memory; a reader that stops early (`| head`) ends it quietly.
 */
export async function exportCommand(
  options: ExportCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const store = await readerOf(options);
  const lines = lineWriter(out);
  try {
    if (options.format === 'csv' && !(await lines.write(CSV_COLUMNS.map(([name]) => name).join(',')))) return;
    for await (const row of store.rows({ order: 'created', includeDeleted: true })) {
      const line =
        options.format === 'csv' ? CSV_COLUMNS.map(([, read]) => csvField(read(row))).join(',') : row.json;
      if (!(await lines.write(line))) return;
    }
  } finally {
    await store.close();
  }
}
