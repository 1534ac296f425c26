/**
 * `idgov tasks search` and `idgov rules get`: a quick look at the tenant from the shell, through the
 * client (credentials from the same environment): NDJSON for scripts, or a table on a terminal.
 *
 * @module
 */
import type { TaskSearchRequest, TaskTypeFilter } from '../../schemas/task-search.ts';
import { IdGovClient } from '../client.ts';
import { type KnownTaskState, printable } from './options.ts';
import { EXIT } from './usage.ts';

/** What `idgov tasks search` takes: the request's filters, and how much to show how. */
export interface TasksSearchOptions {
  readonly states?: readonly KnownTaskState[] | undefined;
  readonly types?: readonly TaskTypeFilter[] | undefined;
  readonly apps?: readonly string[] | undefined;
  /** Unix ms. */
  readonly createdAfter?: number | undefined;
  readonly createdBefore?: number | undefined;
  readonly query?: string | undefined;
  readonly limit: number;
  readonly json: boolean;
}

const write = (line: string) => process.stdout.write(`${line}\n`);

/** `rows` as aligned columns, the last one left as it is. */
function table(cells: readonly (readonly string[])[]): string[] {
  // What the service sent is shown, never run: a terminal's escape sequences become `?`.
  const rows = cells.map((row) => row.map(printable));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
  );
}

/** `idgov tasks search`: up to `limit` tasks of the filters, newest pages first as the service sends them. */
export async function tasksSearchCommand(options: TasksSearchOptions): Promise<number> {
  const client = new IdGovClient();
  const request: TaskSearchRequest = {
    ...(options.states ? { taskStates: [...options.states] } : {}),
    ...(options.types ? { taskTypes: [...options.types] } : {}),
    ...(options.apps ? { applicationIds: [...options.apps] } : {}),
    ...(options.createdAfter !== undefined ? { createdAfter: new Date(options.createdAfter) } : {}),
    ...(options.createdBefore !== undefined ? { createdBefore: new Date(options.createdBefore) } : {}),
    ...(options.query !== undefined ? { query: options.query } : {}),
    pageSize: Math.min(100, Math.max(10, options.limit)),
  };
  const rows: string[][] = [['ID', 'STATE', 'TYPE', 'CREATED', 'NAME']];
  let shown = 0;
  for (const view of await client.tasks.search(request).toArray({ limit: options.limit })) {
    const task = view.task;
    if (!task) continue;
    shown += 1;
    // `$kind`, which the SDK adds to a task's variants, is not the service's: left out.
    if (options.json) write(JSON.stringify(task, (key, value) => (key === '$kind' ? undefined : value)));
    else {
      const type = task.type?.$kind ?? '';
      rows.push([
        task.id ?? '',
        (task.state ?? '').replace('TASK_STATE_', ''),
        type,
        task.createdAt ?? '',
        task.displayName ?? '',
      ]);
    }
  }
  if (!options.json) {
    for (const line of table(rows)) write(line);
    process.stderr.write(
      `${shown} task(s)${shown === options.limit ? ` (the first ${options.limit}: --limit for more)` : ''}.\n`,
    );
  }
  return EXIT.done;
}

/** `idgov rules get ID`: one finding transformation rule as JSON; exit 1 when there is none. */
export async function ruleGetCommand(id: string): Promise<number> {
  const rule = await new IdGovClient().findingRules.get(id);
  if (!rule) {
    process.stderr.write(`idgov: no finding transformation rule ${JSON.stringify(id)}.\n`);
    return EXIT.failed;
  }
  write(JSON.stringify(rule, null, 2));
  return EXIT.done;
}
