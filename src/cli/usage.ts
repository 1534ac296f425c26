/**
 * What both bins (`idgov`, `idgov-fake-tenant`) share: commander for the command line, one usage
 * error, whole-number options, and one way from an error to an exit code.
 *
 * @module
 */
import { type Command, InvalidArgumentError } from 'commander';
import { IdGovError } from '../core/errors/errors.ts';

/** Exit codes of the bins, as their `--help` documents them. */
export const EXIT = { done: 0, failed: 1, usage: 2, interrupted: 130 } as const;

let finishes = false;
let readerGone = false;

/**
 * The command running changes data (`outbox retry`, `outbox purge`): a reader of its output that
 * goes (`| head -3`) drops the rest of the output, not the work. Ending it there would leave it done
 * half-way with exit 0.
 */
export function finishWithoutReader(): void {
  finishes = true;
}

/** Whether stdout's reader went while a command that {@link finishWithoutReader | finishes} ran: write no more. */
export const stdoutReaderGone = (): boolean => readerGone;

// Commands stopping on SIGINT and SIGTERM themselves just now (onStopSignals), and the signals heard.
let ownStops = 0;
let signalsHeard = 0;

/**
 * Calls `onSignal` on the first SIGINT or SIGTERM, instead of the process ending (exit 130) as it
 * does for a command that does not stop on them itself; a second signal still ends it. Returns
 * the way to stop listening.
 */
export function onStopSignals(onSignal: (signal: NodeJS.Signals) => void): () => void {
  ownStops += 1;
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let listening = true;
  return () => {
    if (!listening) return;
    listening = false;
    ownStops -= 1;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * How long a stopped command may wait for its store's answer. A statement on a connection
 * gone half-open (a database out of reach) would hold it for the store's query timeout, minutes,
 * past the grace of a container's stop; each write is one transaction, which the database carries
 * out whole or not at all, so ending without its answer loses nothing committed.
 */
export const STOP_PATIENCE_MS = 5_000;

/**
 * Runs `work` with a signal that SIGINT or SIGTERM aborts (`signalled` says which), rather than
 * ending the process: a command stops between two of its writes, never within one. `work` tells
 * its outcome once known, before it lets go of its store and telemetry: `ended(code)` (which
 * returns `code`), or `failing(error)` for an error it is about to throw (which returns `error`).
 * Work still running {@link STOP_PATIENCE_MS} after the signal is left: before its outcome,
 * `abandoned` says so on stderr and gives the exit code; after it, the process ends with the
 * outcome (a failure said as {@link runProgram} says it), saying what it did not wait for.
 */
export async function stoppedBySignals<T>(
  work: (
    signal: AbortSignal,
    signalled: () => NodeJS.Signals | undefined,
    ended: (code: number) => number,
    failing: <E>(error: E) => E,
  ) => Promise<T>,
  abandoned: (signal: NodeJS.Signals) => number,
): Promise<T> {
  const stop = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  let outcome: { readonly code: number } | { readonly error: unknown } | undefined;
  let patience: ReturnType<typeof setTimeout> | undefined;
  const stopListening = onStopSignals((signal) => {
    signalled = signal;
    stop.abort();
    // Once: the other signal's listener is still there, and a second signal would leave this
    // timer uncleared (the bins end on a second signal anyway).
    patience ??= setTimeout(() => {
      if (outcome === undefined) return process.exit(abandoned(signal));
      let code: number;
      if ('error' in outcome) {
        // Said first: it is what the caller has to act on, and nothing else will say it now.
        const failure = failureOf(outcome.error, 'idgov');
        process.stderr.write(failure.message);
        code = failure.code;
      } else {
        code = outcome.code;
      }
      process.stderr.write(
        `idgov: stopped by ${signal} while closing its store or exporting telemetry, which has not finished ${STOP_PATIENCE_MS / 1000} s later: ending without it.\n`,
      );
      process.exit(code);
    }, STOP_PATIENCE_MS);
  });
  try {
    return await work(
      stop.signal,
      () => signalled,
      (code) => {
        outcome = { code };
        return code;
      },
      (error) => {
        outcome = { error };
        return error;
      },
    );
  } finally {
    clearTimeout(patience);
    stopListening();
  }
}

/**
 * What a command stopped by `signal` says when its work has not ended {@link STOP_PATIENCE_MS}
 * later: the sentence's start, to end with what to do next.
 */
export const leftUnfinished = (signal: NodeJS.Signals) =>
  `Stopped by ${signal}, and the store has not answered for ${STOP_PATIENCE_MS / 1000} s since (a database out of reach?): ending without its answer. A write is done whole or not at all, so what was committed is kept`;

/**
 * Whether `error` is a setup the caller must fix (the environment, the credentials, a path, an
 * argument the SDK refused: `rules get ''`), exit 2, rather than a failure that may pass.
 */
export function isSetupError(error: unknown): boolean {
  return (
    error instanceof IdGovError &&
    ['ConfigurationError', 'AuthenticationError', 'RequestValidationError'].includes(error.name)
  );
}

/**
 * What a bin says of a command's failure (its line on stderr) and its exit code: 2 for a mistake in
 * the command line ({@link UsageError}) or a setup to fix ({@link isSetupError}), 1 for any other.
 */
function failureOf(error: unknown, name: string): { readonly message: string; readonly code: number } {
  // The bin's name says whose message it is: the SDK's own prefix would say it twice.
  const message = String((error as Error)?.message ?? error).replace(/^@idgov\/sdk: /, '');
  const usage = error instanceof UsageError || isSetupError(error);
  return { message: `${name}: ${message}\n`, code: usage ? EXIT.usage : EXIT.failed };
}

/** A mistake in the command line found by an action: printed as a message, exit code 2. */
export class UsageError extends Error {}

/** An option's value as a whole number from `min` to `max`, or commander's usage error saying so. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `, ${min} or more` : ` from ${min} to ${max}`;
      throw new InvalidArgumentError(`a whole number${range} (got "${value}").`);
    }
    return n;
  };
}

/**
 * Parses `argv` with `program` and runs its action, setting `process.exitCode`: 0 for help, 2 for a
 * usage mistake (commander's or a {@link UsageError}) or a setup the caller must fix (the
 * environment, the credentials, a path: a `ConfigurationError` or `AuthenticationError`), 1 for any
 * other failure. Messages start with the bin's name, once; a stack trace is never printed.
 */
export async function runProgram(
  program: Command,
  argv: readonly string[],
  options: { readonly name: string; readonly hint?: string } = { name: program.name() },
): Promise<void> {
  // Every command, subcommands included: they copy these settings only when made after them.
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  const commands = all(program);
  for (const command of commands) {
    command.exitOverride();
    if (options.hint) command.showHelpAfterError(options.hint);
    refuseRepeatedValues(command);
  }
  // A reader that stopped reading (`| head -1`) ends a command that reads quietly, whatever it was
  // writing; one that changes data goes on without its output (see finishWithoutReader). A write that
  // failed otherwise (a full disk) ends it with the reason, not a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (readerGone) return;
    if (error.code === 'EPIPE') {
      if (finishes) {
        readerGone = true;
        return;
      }
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.done);
    }
    process.stderr.write(
      `${options.name}: writing the output failed (${error.code ?? error.message}): check where it goes (a full disk?).\n`,
    );
    process.exit(EXIT.failed);
  });
  // A reader of stderr gone (a log shipper that died, `2>&1 | head`) loses the messages, not the
  // work: a sync goes on to commit its run. Writes to it then fail, and are dropped here.
  process.stderr.on('error', () => {});
  // SIGINT or SIGTERM (what systemd, Kubernetes and `timeout` send) ends a command with 130, as
  // the help says, unless the command stops on them itself (onStopSignals), until a second one: a
  // process killed by SIGTERM would end with 143.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      signalsHeard += 1;
      if (ownStops === 0 || signalsHeard > 1) process.exit(EXIT.interrupted);
    });
  }
  try {
    await program.parseAsync([...argv]);
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
      process.stderr.write(`${options.name}: ${error.message}\n${options.hint ? `${options.hint}\n` : ''}`);
      process.exitCode = EXIT.usage;
    } else {
      const failure = failureOf(error, options.name);
      process.stderr.write(failure.message);
      process.exitCode = failure.code;
      exitOnceWritten(failure.code);
    }
  }
}

/**
 * An option that takes one value, given twice (`--db a.db ... --db b.db`), is a usage error: commander
 * keeps the last silently, and a script assembled from pieces would act on a copy it did not mean.
 * Lists (`--kind a b`, or an option given once a value into an array) and flags are left alone.
 */
function refuseRepeatedValues(command: Command): void {
  for (const option of command.options) {
    // A list: variadic, or collected one value at a time into its default array.
    if (option.variadic || option.isBoolean() || Array.isArray(option.defaultValue)) continue;
    let given = false;
    command.on(`option:${option.name()}`, () => {
      if (given) throw new UsageError(`${option.long ?? option.flags} was given twice: give it once.`);
      given = true;
    });
  }
}

/**
 * Ends the process with `code` once what it wrote is out. A failed command may leave a handle open
 * that keeps Node running (pg leaves a socket open after a refused password): a script or a cron
 * job must get its exit code, not a process that never ends.
 */
function exitOnceWritten(code: number): void {
  let pending = 2;
  const written = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
}
