/**
 * `idgov`: the SDK's command-line tool. `idgov sync` keeps a copy of the tenant's tasks current,
 * in SQLite or PostgreSQL; `idgov export` writes a SQLite copy out as NDJSON or CSV. Credentials come from the environment,
 * as for the client: IDGOV_BASE_URL, and IDGOV_CLIENT_ID with IDGOV_CLIENT_SECRET, or IDGOV_TOKEN.
 *
 * @module
 */
import { Command, InvalidArgumentError } from 'commander';
import type { OutboxState } from '../outbox/store.ts';
import { exportCommand } from './export-command.ts';
import {
  listCommand,
  type OutboxTarget,
  purgeCommand,
  retryCommand,
  statusCommand,
} from './outbox-command.ts';
import { syncCommand } from './sync-command.ts';
import { runProgram, UsageError, wholeNumber } from './usage.ts';

const program = new Command('idgov')
  .description(
    "Command-line tool of @idgov/sdk: a copy of your tenant's tasks (SQLite or PostgreSQL), kept current.",
  )
  .addHelpText(
    'after',
    `
Environment: IDGOV_BASE_URL (the tenant, e.g. https://acme.example.com), and IDGOV_CLIENT_ID with
IDGOV_CLIENT_SECRET, or IDGOV_TOKEN. IDGOV_LOG sets what is logged (off, error, warn, info, debug).

Exit codes: 0 done; 1 failed (the message says why); 2 bad usage or setup; 130 stopped by SIGINT
or SIGTERM (everything committed is kept: run the same command again to resume).`,
  );

/**
 * The copy the options name: `--db` (SQLite) or `--postgres` (with `--table`), exactly one, and no
 * option that does not apply to it.
 */
function checkCopy(options: { db?: string; postgres?: string; table?: string }, noun = 'copy'): void {
  if ((options.db === undefined) === (options.postgres === undefined)) {
    throw new UsageError(`give the ${noun} as --db <file> (SQLite) or --postgres <url>, one of them.`);
  }
  if (options.postgres !== undefined && !/^postgres(?:ql)?:\/\//i.test(options.postgres)) {
    throw new UsageError(
      '--postgres takes a connection URL, e.g. postgres://sync@db.example:5432/reports (this is not one; not shown: it may hold a password).',
    );
  }
  if (options.db !== undefined) {
    checkFile(options.db);
    if (options.table !== undefined) {
      throw new UsageError(
        '--table names PostgreSQL tables: drop it, or give --postgres <url> instead of --db.',
      );
    }
  }
}

/**
 * Refuses a `--db` that is no file name: empty, or a URL (a PostgreSQL one given to the wrong
 * option), which is not quoted back, as it may hold a password.
 */
function checkFile(db: string): void {
  if (db.trim() === '')
    throw new UsageError('--db must name the SQLite file of the copy (got an empty path).');
  if (/^file:/i.test(db)) {
    throw new UsageError('--db takes a file path: give the path itself, not a file: URI.');
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) {
    throw new UsageError(
      '--db takes a SQLite file, and this is a URL (not shown: it may hold a password): for PostgreSQL, use --postgres <url>.',
    );
  }
}

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
    }) => {
      checkCopy(options);
      process.exitCode = await syncCommand(options);
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
    'ndjson (each task: as the service sent it from SQLite, as jsonb keeps it from PostgreSQL) or csv (the documented columns)',
    'ndjson',
  )
  .action(async (options: { db?: string; postgres?: string; table?: string; format: string }) => {
    const format = options.format.toLowerCase();
    if (format !== 'ndjson' && format !== 'csv') {
      throw new UsageError(`--format must be ndjson or csv, in any case (got "${options.format}").`);
    }
    checkCopy(options);
    await exportCommand({ ...options, format });
  });

/** A subcommand of `idgov outbox`, with the options every one of them takes. */
function outboxCommand(name: string, description: string, example: string): Command {
  return program.commands
    .find((command) => command.name() === 'outbox')
    ?.command(name)
    .description(description)
    .option('--db <file>', "the outbox's SQLite file")
    .option('--postgres <url>', "the outbox's PostgreSQL database")
    .option(
      '--table <name>',
      'with --postgres: the table, optionally schema.table (default: idgov_webhook_outbox)',
    )
    .option('--listener <url>', 'only the events of this listener (default: every listener)')
    .option('--json', 'one JSON object a line, for scripts', false)
    .addHelpText('after', `\nExample:\n  ${example}`) as Command;
}

/** A date an option names, as Unix ms; commander's usage error when it names none. */
function date(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(`a date, e.g. 2026-11-01 or 2026-11-01T12:00:00Z (got "${value}").`);
  return ms;
}

program
  .command('outbox')
  .description(
    "An outbox's events from the shell: status, list, retry (a dead event sent again), purge. Exit 0 done, 1 failed (or some event not retried), 2 usage.",
  );

outboxCommand(
  'status',
  'Events in each state by listener, the oldest pending one, the next due time, and the leases held (by whom, until when).',
  'idgov outbox status --db outbox.db',
).action(async (options: OutboxTarget & { listener?: string; json: boolean }) => {
  checkCopy(options, 'outbox');
  process.exitCode = await statusCommand(options);
});

outboxCommand(
  'list',
  'Events in a state, oldest first: their attempts and last answer (their bodies with --body).',
  'idgov outbox list --db outbox.db --state dead --limit 20',
)
  .option('--state <state>', 'pending, delivered, dead or expired', 'dead')
  .option('--limit <n>', 'most events to list', wholeNumber(1, 100_000), 50)
  .option('--body', "also each event's body (what was signed and sent)", false)
  .action(
    async (
      options: OutboxTarget & {
        state: string;
        listener?: string;
        limit: number;
        json: boolean;
        body: boolean;
      },
    ) => {
      const state = options.state.toLowerCase();
      if (!['pending', 'delivered', 'dead', 'expired'].includes(state)) {
        throw new UsageError(`--state must be pending, delivered, dead or expired (got "${options.state}").`);
      }
      checkCopy(options, 'outbox');
      process.exitCode = await listCommand({ ...options, state: state as OutboxState });
    },
  );

outboxCommand(
  'retry',
  'Sends events again: each named one, or every dead one with --all-dead, back to pending, due now (as WebhookOutbox.retry does).',
  'idgov outbox retry --db outbox.db --all-dead',
)
  .argument('[eventIds...]', 'the events to retry')
  .option('--all-dead', 'every dead event (of --listener, if given)', false)
  .action(
    async (ids: string[], options: OutboxTarget & { allDead: boolean; listener?: string; json: boolean }) => {
      if (ids.length === 0 && !options.allDead)
        throw new UsageError('name the events to retry, or give --all-dead.');
      checkCopy(options, 'outbox');
      process.exitCode = await retryCommand({ ...options, ids });
    },
  );

outboxCommand(
  'purge',
  'Deletes delivered events that finished before a date.',
  'idgov outbox purge --db outbox.db --delivered-before 2026-11-01',
)
  .requiredOption('--delivered-before <date>', 'delete delivered events finished before this date', date)
  .action(async (options: OutboxTarget & { deliveredBefore: number; listener?: string; json: boolean }) => {
    checkCopy(options, 'outbox');
    process.exitCode = await purgeCommand(options);
  });

await runProgram(program, process.argv);
