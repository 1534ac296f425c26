/**
 * `idgov status`: where a task copy stands, for the operator who wonders whether it is current or
 * stuck: what it holds, its last completed run, the run under way or stopped, its feed's last `seq`.
 *
 * @module
 */
import type { Command } from 'commander';
import type { CopyStatus } from '../sync/copy-status.ts';
import { type CopyTarget, openToRead } from './copy-access.ts';
import { checkCopy, printable } from './options.ts';

/** Adds `status` to `program`. */
export function addStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Where a copy stands: its tasks by state, its last completed run, the run under way or stopped (windows, pages, tasks), and its change feed.',
    )
    .option('--db <file>', 'the SQLite file of the copy')
    .option('--postgres <url>', 'the PostgreSQL database of the copy')
    .option(
      '--table <prefix>',
      'with --postgres: the prefix of the tables, optionally schema.prefix (default: idgov)',
    )
    .option('--json', 'one JSON object, for scripts', false)
    .addHelpText('after', '\nExample:\n  idgov status --db tasks.db')
    .action(async (options: CopyTarget & { json: boolean }) => {
      checkCopy(options);
      const store = await openToRead(options);
      try {
        const status = await store.status();
        process.stdout.write(options.json ? `${JSON.stringify(status)}\n` : statusLines(status));
      } finally {
        await store.close();
      }
    });
}

const count = (n: number) => n.toLocaleString('en');

/** The status as a person reads it. */
export function statusLines(status: CopyStatus): string {
  const live = Object.entries(status.tasks).sort(([a], [b]) => a.localeCompare(b));
  const total = live.reduce((sum, [, n]) => sum + n, 0);
  // A state is the service's text, kept as sent: shown so that it cannot act on a terminal.
  const byState = live.map(([state, n]) => `${printable(state) || '(no state)'} ${count(n)}`).join(', ');
  const lines = [
    `tasks: ${count(total)}${byState ? ` (${byState})` : ''}; deleted ${count(status.deleted)} (vanished ${count(status.vanished)})`,
  ];
  const last = status.lastCompletedRun;
  lines.push(
    last
      ? `last completed run: ${last.kind}, finished ${last.finishedAt}`
      : 'last completed run: none yet: the copy holds only the tasks copied so far (idgov sync finishes it)',
  );
  const open = status.unfinishedRun;
  if (open) {
    const windows = open.windowsDone + open.windowsLeft;
    lines.push(
      `unfinished run: ${open.kind}, started ${open.startedAt}: windows ${count(open.windowsDone)} of ${count(windows)} done, ${count(open.pages)} pages, ${count(open.tasks)} tasks fetched so far (idgov sync resumes it; idgov sync --full ends it and pages everything again)`,
    );
  } else lines.push('unfinished run: none');
  lines.push(...atWork(status));
  lines.push(
    status.lastSeq === undefined
      ? 'change feed: none: the copy was made by an earlier release (idgov sync adds the feed)'
      : status.lastSeq === 0
        ? 'change feed: no change yet'
        : `change feed: through seq ${count(status.lastSeq)}`,
  );
  return `${lines.join('\n')}\n`;
}

const ago = (iso: string) => `${count(Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000)))} s ago`;
const windowsAndTasks = (windows: number, tasks: number) =>
  `${count(windows)} window${windows === 1 ? '' : 's'} and ${count(tasks)} open task${tasks === 1 ? '' : 's'}`;

/** Whether a sync is at work on the copy, and what a stopped one left behind: a stuck copy's lines. */
function atWork({ leases, syncProcess, unfinishedRun }: CopyStatus): string[] {
  const lines: string[] = [];
  if (syncProcess) {
    lines.push(
      `sync process: ${syncProcess.pid} on ${printable(syncProcess.host)}, last seen ${ago(syncProcess.lastSeen)}${syncProcess.gone ? ': gone (it ended without letting the copy go, or stopped answering); the next idgov sync takes the copy over' : ''}`,
    );
  }
  const held = leases.windowsHeld + leases.tasksHeld;
  if (held > 0) {
    lines.push(
      `at work now: ${windowsAndTasks(leases.windowsHeld, leases.tasksHeld)} held under live leases, being paged and refreshed`,
    );
  } else if (unfinishedRun) {
    // A sync between two windows, or ending the run, holds none for a moment.
    lines.push(
      syncProcess && !syncProcess.gone
        ? 'at work now: no window or open task leased at this moment: the sync process is between two, or ending the run'
        : 'at work now: nothing leased: no sync is paging or refreshing the run (idgov sync resumes it; a sync between two windows holds none for a moment)',
    );
  }
  if (leases.windowsRanOut + leases.tasksRanOut > 0) {
    lines.push(
      `left behind: ${windowsAndTasks(leases.windowsRanOut, leases.tasksRanOut)} whose lease ran out without being let go: the sync that held them stopped (killed, or cut off from the store); the next idgov sync takes them over`,
    );
  }
  return lines;
}
