/**
 * `idgov`: the SDK's command-line tool. `idgov sync` keeps a copy of the tenant's tasks current,
 * in SQLite or PostgreSQL; `idgov export` writes a copy out as NDJSON or CSV, `idgov changes` its
 * change feed. Credentials come from the environment, as for the client: IDGOV_BASE_URL, and
 * IDGOV_CLIENT_ID with IDGOV_CLIENT_SECRET, or IDGOV_TOKEN.
 *
 * @module
 */
import { Command } from 'commander';
import type { TaskExpandPath } from '../../schemas/enums.ts';
import { KNOWN_TASK_TYPE_KINDS } from '../../schemas/request-values.ts';
import { VERSION } from '../version.ts';
import { addChangesCommands } from './changes-program.ts';
import { CSV_COLUMNS, exportCommand } from './export-command.ts';
import { ruleGetCommand, tasksSearchCommand } from './lookup-command.ts';
import { checkCopy, date, taskState, taskTypeFilter } from './options.ts';
import { addOutboxCommands } from './outbox-program.ts';
import { addStatusCommand } from './status-command.ts';
import { syncCommand } from './sync-command.ts';
import { runProgram, UsageError, wholeNumber } from './usage.ts';

const program = new Command('idgov')
  // A command's options go after its name: `changes prune --db x` gives --db to prune, not to
  // `changes` (which has one too).
  .enablePositionalOptions()
  .version(VERSION, '-V, --version', "the SDK's version")
  .description(
    "Command-line tool of @idgov/sdk: a copy of your tenant's tasks (SQLite or PostgreSQL), kept current.",
  )
  .addHelpText(
    'after',
    `
Environment: IDGOV_BASE_URL (the tenant, e.g. https://acme.example.com), and IDGOV_CLIENT_ID with
IDGOV_CLIENT_SECRET, or IDGOV_TOKEN. IDGOV_LOG sets what is logged (off, error, warn, info, debug).

Exit codes: 0 done; 1 failed (the message says why); 2 bad usage or setup; 130 stopped by SIGINT
or SIGTERM (everything committed is kept: run the same command again to resume), except for
sync --watch and changes --follow, which SIGINT and SIGTERM end with 0.`,
  );

program
  .command('sync')
  .description(
    'Copy every task into a SQLite file or PostgreSQL, or make the copy current (resumes a stopped run). On PostgreSQL, run it on as many machines as you like: they share the work.',
  )
  .option('--db <file>', 'the SQLite file of the copy (created if missing)')
  .option(
    '--postgres <url>',
    'the PostgreSQL database of the copy, e.g. postgres://sync@db/reports (tables created if missing)',
  )
  .option(
    '--table <prefix>',
    'with --postgres: the prefix of the tables, optionally schema.prefix (default: idgov)',
  )
  .option('--concurrency <n>', 'cursors paging at once', wholeNumber(1, 64), 8)
  .option(
    '--page-size <n>',
    'tasks a page (halved by itself when an answer passes the size limit)',
    wholeNumber(10, 100),
    100,
  )
  .option(
    '--full',
    'page every task again, and mark the tasks that vanished (an unfinished run is ended first: what it committed stays)',
    false,
  )
  .option(
    '--retries <n>',
    'tries again of a request the service refused for now (429, 5xx) or a dropped connection',
    wholeNumber(0, 10),
    5,
  )
  .option(
    '--task-type <type...>',
    `only tasks of these types (${KNOWN_TASK_TYPE_KINDS.join(', ')}); the copy is then of that filter`,
  )
  .option('--app <id...>', 'only tasks of these app IDs; the copy is then of that filter')
  .option(
    '--expand <path...>',
    "expand these paths (e.g. user_id app_id, or * for all) into the copy's expanded table, by @type and ID",
  )
  .addHelpText(
    'after',
    '\nExamples:\n  idgov sync --db tasks.db\n  idgov sync --postgres postgres://sync@db/reports --concurrency 16   # on each machine',
  )
  .option(
    '--change-feed <start>',
    'all: the change feed (idgov changes) records the first copy too; after-first-copy: it begins once a first run completed (read for a new copy: a first run resumed goes on as it began)',
    'all',
  )
  .option(
    '--watch <seconds>',
    'run again and again, this many seconds apart (start to start), each summary on stderr, until SIGINT or SIGTERM (exit 0); a failed run is said and the next resumes it, a setup to fix ends it (exit 2)',
    wholeNumber(1, 86_400),
  )
  .option(
    '--lease <seconds>',
    "how long after a worker's last heartbeat (every sixth of it) its work passes on: a dead worker's window waits this long",
    wholeNumber(1, 3_600),
    15,
  )
  .action(
    async (options: {
      db?: string;
      postgres?: string;
      table?: string;
      concurrency: number;
      pageSize: number;
      full: boolean;
      lease: number;
      retries: number;
      taskType?: string[];
      app?: string[];
      expand?: string[];
      changeFeed: string;
      watch?: number;
    }) => {
      checkCopy(options);
      if (options.changeFeed !== 'all' && options.changeFeed !== 'after-first-copy') {
        throw new UsageError(`--change-feed must be all or after-first-copy (got "${options.changeFeed}").`);
      }
      const filter = {
        ...(options.taskType ? { taskTypes: options.taskType.map(taskTypeFilter('--task-type')) } : {}),
        ...(options.app ? { applicationIds: options.app } : {}),
      };
      process.exitCode = await syncCommand({
        ...options,
        filter,
        expand: options.expand as TaskExpandPath[] | undefined,
        changeFeed: options.changeFeed,
      });
    },
  );

program
  .command('export')
  .description("Write the copy's tasks to stdout, oldest first (a SQLite or a PostgreSQL copy).")
  .option('--db <file>', 'the SQLite file of the copy')
  .option('--postgres <url>', 'the PostgreSQL database of the copy')
  .option(
    '--table <prefix>',
    'with --postgres: the prefix of the tables, optionally schema.prefix (default: idgov)',
  )
  .option(
    '--format <format>',
    'ndjson ({"task", "deleted", "vanished", "syncedAt"} a line; the task as the service sent it from SQLite, as jsonb keeps it from PostgreSQL) or csv',
    'ndjson',
  )
  .option('--state <state>', 'only tasks in this state: open, closed (or TASK_STATE_...)')
  .option('--include-deleted', 'deleted tasks too (vanished ones among them)', false)
  .option('--since <date>', 'only tasks updated at or after this date (e.g. 2026-11-01)', date)
  .option(
    '--columns <columns>',
    `with --format csv: the columns, comma-separated, from ${Object.keys(CSV_COLUMNS).join(', ')}`,
  )
  .option(
    '--csv-raw',
    "with --format csv: cells as stored, even those a spreadsheet would run as a formula (guarded with a leading ' by default)",
    false,
  )
  .addHelpText(
    'after',
    '\nExample:\n  idgov export --db tasks.db --format csv --state open --since 2026-11-01 > open.csv',
  )
  .action(
    async (options: {
      db?: string;
      postgres?: string;
      table?: string;
      format: string;
      state?: string;
      includeDeleted: boolean;
      since?: number;
      columns?: string;
      csvRaw: boolean;
    }) => {
      const format = options.format.toLowerCase();
      if (format !== 'ndjson' && format !== 'csv') {
        throw new UsageError(`--format must be ndjson or csv, in any case (got "${options.format}").`);
      }
      const columns = options.columns?.split(',').map((column) => column.trim().toLowerCase());
      if (columns && format !== 'csv') throw new UsageError('--columns applies to --format csv.');
      const unknownColumn = columns?.find((column) => !Object.hasOwn(CSV_COLUMNS, column));
      if (unknownColumn !== undefined) {
        throw new UsageError(
          `--columns: no column "${unknownColumn}"; the columns are ${Object.keys(CSV_COLUMNS).join(', ')}.`,
        );
      }
      checkCopy(options);
      await exportCommand({
        ...options,
        format,
        columns,
        state: options.state === undefined ? undefined : taskState(options.state),
      });
    },
  );

addStatusCommand(program);
addChangesCommands(program);
addOutboxCommands(program);

const tasks = program.command('tasks').description("A quick look at the tenant's tasks.");
tasks
  .command('search')
  .description('Tasks of the filters, as the service sends them: a table, or NDJSON with --json.')
  .option('--state <state...>', 'open, closed (or TASK_STATE_...)')
  .option('--type <type...>', `task types: ${KNOWN_TASK_TYPE_KINDS.join(', ')}`)
  .option('--app <id...>', 'app IDs')
  .option('--created-after <date>', 'created after this date', date)
  .option('--created-before <date>', 'created before this date', date)
  .option('--query <text>', "the service's free-text query")
  .option('--limit <n>', 'most tasks to show', wholeNumber(1, 100_000), 20)
  .option('--json', 'each task as JSON, one a line', false)
  .addHelpText('after', '\nExample:\n  idgov tasks search --state open --type grant --limit 5')
  .action(
    async (options: {
      state?: string[];
      type?: string[];
      app?: string[];
      createdAfter?: number;
      createdBefore?: number;
      query?: string;
      limit: number;
      json: boolean;
    }) => {
      process.exitCode = await tasksSearchCommand({
        ...options,
        states: options.state?.map(taskState),
        types: options.type?.map(taskTypeFilter('--type')),
        apps: options.app,
      });
    },
  );

program
  .command('rules')
  .description('Finding transformation rules.')
  .command('get')
  .description('One finding transformation rule, as JSON (exit 1 when there is none).')
  .argument('<id>', 'the rule ID')
  .addHelpText('after', '\nExample:\n  idgov rules get rule-l0C2NkbdUdMu')
  .action(async (id: string) => {
    process.exitCode = await ruleGetCommand(id);
  });

await runProgram(program, process.argv);
