/**
 * `idgov outbox` and its subcommands (status, list, retry, purge), as the command line takes them;
 * what each does is in outbox-command.ts (status, list) and outbox-repair.ts (retry, purge), which
 * reach the outbox through outbox-access.ts.
 *
 * @module
 */
import type { Command } from 'commander';
import { FINISHED_STATES, type FinishedState, type OutboxState } from '../outbox/store.ts';
import { checkCopy, date } from './options.ts';
import type { OutboxTarget } from './outbox-access.ts';
import { listCommand, statusCommand } from './outbox-command.ts';
import { type PurgeBefore, purgeCommand, retryCommand } from './outbox-repair.ts';
import { UsageError, wholeNumber } from './usage.ts';

/** Adds `outbox` and its subcommands to `program`. */
export function addOutboxCommands(program: Command): void {
  const outbox = program
    .command('outbox')
    .description(
      "An outbox's events from the shell: status, list, retry (a dead event sent again), purge (finished ones deleted). Exit 0 done, 1 failed (or an event not retried, but for a dead one past its window under --all-dead), 2 usage.",
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
    .option('--after <eventId>', 'the events after this one (the last a list showed): the next page')
    .action(
      async (
        options: OutboxTarget & {
          state: string;
          listener?: string;
          limit: number;
          after?: string;
          json: boolean;
          body: boolean;
        },
      ) => {
        const state = options.state.toLowerCase();
        if (!['pending', 'delivered', 'dead', 'expired'].includes(state)) {
          throw new UsageError(
            `--state must be pending, delivered, dead or expired (got "${options.state}").`,
          );
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
    .option(
      '--all-dead',
      'every dead event (of --listener, if given) still in its window; those past it are counted apart',
      false,
    )
    .action(
      async (
        ids: string[],
        options: OutboxTarget & { allDead: boolean; listener?: string; json: boolean },
      ) => {
        if (ids.length === 0 && !options.allDead)
          throw new UsageError('name the events to retry, or give --all-dead.');
        if (ids.length > 0 && options.listener !== undefined) {
          throw new UsageError(
            '--listener applies to --all-dead: named events are retried whatever their listener.',
          );
        }
        checkCopy(options, 'outbox');
        process.exitCode = await retryCommand({ ...options, ids });
      },
    );

  outboxCommand(
    'purge',
    'Deletes finished events (delivered, dead or expired) that finished before a date: a dead event past its window can never be sent again.',
    'idgov outbox purge --db outbox.db --delivered-before 2026-11-01 --dead-before 2026-10-01',
  )
    .option('--delivered-before <date>', 'delete delivered events finished before this date', date)
    .option(
      '--dead-before <date>',
      'delete dead events that died before this date; one still in its window, which retry could yet send, refuses the purge unless --include-retryable',
      date,
    )
    .option('--include-retryable', 'with --dead-before: delete dead events still in their window too', false)
    .option('--expired-before <date>', 'delete expired events that expired before this date', date)
    .action(
      async (
        options: OutboxTarget &
          Partial<Record<`${FinishedState}Before`, number>> & {
            listener?: string;
            json: boolean;
            includeRetryable: boolean;
          },
      ) => {
        const before: PurgeBefore = {};
        for (const state of FINISHED_STATES) {
          const at = options[`${state}Before`];
          if (at === undefined) continue;
          // A date to come (a typo: 3026-11-01) would delete every such event, the last minute's too.
          if (at > Date.now()) {
            throw new UsageError(
              `--${state}-before is in the future: give a date past (today's deletes every ${state} event finished before today).`,
            );
          }
          before[state] = at;
        }
        if (Object.keys(before).length === 0) {
          throw new UsageError('give --delivered-before, --dead-before or --expired-before (or several).');
        }
        if (options.includeRetryable && before.dead === undefined) {
          throw new UsageError('--include-retryable applies to --dead-before: give it too, or leave it out.');
        }
        checkCopy(options, 'outbox');
        process.exitCode = await purgeCommand({ ...options, before });
      },
    );

  /** A subcommand of `idgov outbox`, with the options every one of them takes. */
  function outboxCommand(name: string, description: string, example: string): Command {
    return outbox
      .command(name)
      .description(description)
      .option('--db <file>', "the outbox's SQLite file")
      .option('--postgres <url>', "the outbox's PostgreSQL database")
      .option(
        '--table <name>',
        'with --postgres: the table, optionally schema.table (default: idgov_webhook_outbox)',
      )
      .option('--listener <url>', 'only the events of this listener (default: every listener)')
      .option('--json', 'one JSON object a line, for scripts', false)
      .addHelpText('after', `\nExample:\n  ${example}`);
  }
}
