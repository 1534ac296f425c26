/**
 * `idgov`: the SDK's command-line tool. `idgov sync` keeps a copy of the tenant's tasks current,
 * in SQLite or PostgreSQL; `idgov export` writes a SQLite copy out as NDJSON or CSV. Credentials come from the environment,
 * as for the client: IDGOV_BASE_URL, and IDGOV_CLIENT_ID with IDGOV_CLIENT_SECRET, or IDGOV_TOKEN.
 *
 * @module
 */
import { Command, InvalidArgumentError } from 'commander';
import { IdGovError } from '../core/errors/errors.ts';
import { exportCommand } from './export-command.ts';
import { EXIT, syncCommand } from './sync-command.ts';

/** A mistake in the command line found by an action: printed as a message, exit code 2. */
class UsageError extends Error {}

function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`a whole number from ${min} to ${max} (got "${value}").`);
    }
    return n;
  };
}

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
  )
  .exitOverride();

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
      '--db takes a SQLite file, and this is a URL (not shown: it may hold a password): for PostgreSQL, use `idgov sync --postgres <url>`; `idgov export` reads a SQLite copy only.',
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
  .option('--table <prefix>', 'with --postgres: the prefix of the tables, optionally schema.prefix', 'idgov')
  .option('--concurrency <n>', 'cursors paging at once', wholeNumber(1, 64), 8)
  .option('--full', 'page every task again, and mark the tasks that vanished', false)
  .option(
    '--retries <n>',
    'tries again of a request the service refused for now (429, 5xx) or a dropped connection',
    wholeNumber(0, 10),
    5,
  )
  .option(
    '--lease <seconds>',
    "how long a worker holds its window after each page; a dead worker's window passes on after it",
    wholeNumber(1, 3_600),
    120,
  )
  .action(
    async (options: {
      db?: string;
      postgres?: string;
      table: string;
      concurrency: number;
      full: boolean;
      lease: number;
      retries: number;
    }) => {
      if ((options.db === undefined) === (options.postgres === undefined)) {
        throw new UsageError('give the copy as --db <file> (SQLite) or --postgres <url>, one of them.');
      }
      if (options.db !== undefined) checkFile(options.db);
      process.exitCode = await syncCommand(options);
    },
  );

program
  .command('export')
  .description("Write the copy's tasks to stdout, oldest first.")
  .requiredOption('--db <file>', 'the SQLite file of the copy')
  .option(
    '--format <format>',
    'ndjson (each task as the service sent it) or csv (the documented columns)',
    'ndjson',
  )
  .action(async (options: { db: string; format: string }) => {
    if (options.format !== 'ndjson' && options.format !== 'csv') {
      throw new UsageError(`--format must be ndjson or csv (got "${options.format}").`);
    }
    checkFile(options.db);
    await exportCommand({ db: options.db, format: options.format });
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') {
    process.exitCode = EXIT.done;
  } else if (code === 'commander.help') {
    // `idgov help` asked for it (0); no command given (1): a script whose command is empty must not succeed.
    process.exitCode = (error as { exitCode?: number }).exitCode === 0 ? EXIT.done : EXIT.usage;
  } else if (typeof code === 'string' && code.startsWith('commander.')) {
    process.exitCode = EXIT.usage; // commander printed the message
  } else if (error instanceof UsageError) {
    process.stderr.write(`idgov: ${error.message}\n`);
    process.exitCode = EXIT.usage;
  } else {
    // Setup: what the caller must fix (the environment, the credentials, the path), not a failure to retry.
    const setup =
      error instanceof IdGovError &&
      (error.name === 'ConfigurationError' || error.name === 'AuthenticationError');
    process.stderr.write(`idgov: ${(error as Error)?.message ?? error}\n`);
    process.exitCode = setup ? EXIT.usage : EXIT.failed;
  }
}
