/**
 * `idgov changes` and `idgov changes prune`, as the command line takes them; what each does is in
 * changes-command.ts.
 *
 * @module
 */
import type { Command } from 'commander';
import { CHANGE_KINDS, type ChangeKind } from '../sync/change-kinds.ts';
import { changesCommand, pruneChangesCommand } from './changes-command.ts';
import type { CopyTarget } from './copy-access.ts';
import { checkCopy } from './options.ts';
import { UsageError, wholeNumber } from './usage.ts';

const seq = wholeNumber(0, Number.MAX_SAFE_INTEGER);

/** The copy options every `changes` command takes. */
function copyOptions(command: Command): Command {
  return command
    .option('--db <file>', 'the SQLite file of the copy')
    .option('--postgres <url>', 'the PostgreSQL database of the copy')
    .option(
      '--table <prefix>',
      'with --postgres: the prefix of the tables, optionally schema.prefix (default: idgov)',
    );
}

/** A kind as an option names it (any case); a usage error for one the feed does not have. */
function changeKind(value: string): ChangeKind {
  const kind = CHANGE_KINDS.find((k) => k === value.toLowerCase());
  if (kind) return kind;
  throw new UsageError(`--kind: no kind "${value}"; the kinds are ${CHANGE_KINDS.join(', ')}.`);
}

/** Adds `changes` and `changes prune` to `program`. */
export function addChangesCommands(program: Command): void {
  const changes = copyOptions(
    program
      .command('changes')
      .description(
        "The copy's change feed on stdout, one change a line (NDJSON: seq, kind, taskId, at, previousState, state, task), in seq order. Keep the last seq you handled, and give it to --since next time.",
      ),
  )
    .option(
      '--since <seq>',
      'only changes after this seq, the last one you handled (0: from the start); required',
      seq,
    )
    .option(
      '--kind <kind...>',
      `only changes of these kinds: ${CHANGE_KINDS.join(', ')} (stderr then says the seq read through, to go on from)`,
    )
    .option(
      '--follow',
      'then wait for new changes as syncs commit them, until SIGINT or SIGTERM (exit 0)',
      false,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  idgov changes --db tasks.db --since 0 --kind deleted\n  idgov changes --postgres postgres://reader@db/reports --since 41230 --follow',
    )
    .action(async (options: CopyTarget & { since?: number; kind?: string[]; follow: boolean }) => {
      // Required, but not by commander: it would ask it of `changes prune` too.
      if (options.since === undefined) {
        throw new UsageError(
          'give --since <seq>: the last seq you handled (0 to read the feed from the start).',
        );
      }
      checkCopy(options);
      await changesCommand({ ...options, since: options.since, kinds: options.kind?.map(changeKind) });
    });

  copyOptions(
    changes
      .command('prune')
      .description('Delete the changes before a seq (retention): once every reader has handled them.'),
  )
    .requiredOption('--before <seq>', 'delete the changes whose seq is less than this', seq)
    .addHelpText('after', '\nExample:\n  idgov changes prune --db tasks.db --before 41230')
    .action(async (options: CopyTarget & { before: number }) => {
      checkCopy(options);
      await pruneChangesCommand(options);
    });
}
