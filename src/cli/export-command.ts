import type { TaskState } from '../../schemas/enums.ts';
import type { CopyRecord } from '../sync/copy-rows.ts';
import { type CopyTarget, lineWriter, openToRead } from './copy-access.ts';
import { shellWord } from './options.ts';

/** What `idgov export` takes: a SQLite file (`db`) or a PostgreSQL URL (`postgres`, with a table prefix), and which tasks. */
export interface ExportCommandOptions extends CopyTarget {
  readonly format: 'ndjson' | 'csv';
  /** Only tasks in this state (`TASK_STATE_OPEN`...). */
  readonly state?: TaskState | undefined;
  /** Deleted tasks too (vanished ones among them). */
  readonly includeDeleted?: boolean | undefined;
  /** Only tasks updated at or after this instant (Unix ms). */
  readonly since?: number | undefined;
  /** The CSV's columns, in this order (default: every documented one but `task`). */
  readonly columns?: readonly string[] | undefined;
  /** CSV cells as stored, even those a spreadsheet would run as a formula. */
  readonly csvRaw?: boolean | undefined;
}

/** The documented columns, and how each is read from a row of the copy. */
export const CSV_COLUMNS: Readonly<Record<string, (row: CopyRecord) => unknown>> = {
  id: (row) => row.id,
  state: (row) => row.state,
  created_at: (row) => row.createdAt,
  updated_at: (row) => row.updatedAt,
  deleted_at: (row) => row.deletedAt,
  vanished: (row) => (row.vanished ? 1 : 0),
  synced_at: (row) => row.syncedAt,
  task: (row) => row.json,
};
const DEFAULT_COLUMNS = ['id', 'state', 'created_at', 'updated_at', 'deleted_at', 'vanished', 'synced_at'];

// What a spreadsheet runs as a formula when a cell starts with it (OWASP's CSV injection advice).
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV field, quoted when it must be (RFC 4180); one a spreadsheet would run as a formula is
 * guarded with a leading `'`, unless `raw`.
 */
function csvField(value: unknown, raw: boolean): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (!raw && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** An NDJSON line: the task as stored, and the copy's own facts beside it (a vanished task is not a closed one). */
function ndjsonLine(row: CopyRecord): string {
  return `{"task":${row.json},"deleted":${row.deletedAt !== undefined},"vanished":${row.vanished},"syncedAt":${JSON.stringify(row.syncedAt)}}`;
}

/**
 * `idgov export`: the copy's tasks to stdout, oldest first, through the store's reader: NDJSON (each
 * task with the copy's facts beside it, one a line) or CSV (the documented columns, or those asked
 * for). Rows stream, so a large copy needs no memory; a reader that stops early (`| head`) ends it quietly.
 */
export async function exportCommand(
  options: ExportCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const store = await openToRead(options);
  const lines = lineWriter(out);
  const columns = options.columns ?? DEFAULT_COLUMNS;
  const raw = options.csvRaw === true;
  try {
    if (options.format === 'csv' && !(await lines.write(columns.join(',')))) return;
    const query = {
      order: 'created',
      includeDeleted: options.includeDeleted === true,
      state: options.state,
    } as const;
    for await (const row of store.rows(query)) {
      // Times are stored as ISO 8601 UTC with milliseconds: their text order is their time order.
      if (options.since !== undefined && !(row.updatedAt && Date.parse(row.updatedAt) >= options.since))
        continue;
      const line =
        options.format === 'csv'
          ? columns.map((column) => csvField(CSV_COLUMNS[column]?.(row), raw)).join(',')
          : ndjsonLine(row);
      if (!(await lines.write(line))) return;
    }
    // Said after the rows (a copy that is not there fails on them, with its own message), on stderr.
    if (!(await store.hasCompletedRun())) {
      const again =
        options.postgres !== undefined
          ? `--postgres URL${options.table === undefined ? '' : ` --table ${shellWord(options.table)}`}`
          : `--db ${shellWord(options.db ?? '')}`;
      process.stderr.write(
        `idgov: warning: no run of this copy has completed yet: the export holds only the tasks copied so far, not all of the tenant's. Run \`idgov sync ${again}\` to finish the copy (it resumes).\n`,
      );
    }
  } finally {
    await store.close();
  }
}
