/**
 * `idgov changes`: a copy's change feed on stdout as NDJSON, from a saved position, optionally
 * followed live; and `idgov changes prune`, its retention.
 *
 * @module
 */

import { abortable, wait } from '../internal/wait.ts';
import type { ChangeKind } from '../sync/change-kinds.ts';
import type { ChangeRecord } from '../sync/changes.ts';
import { ChangesAheadError } from '../sync/changes-ahead.ts';
import { followedThroughOutages } from './changes-follow.ts';
import { type CopyTarget, lineWriter, openToRead } from './copy-access.ts';
import { DeliveredPosition } from './delivered-position.ts';
import { EXIT, onStopSignals } from './usage.ts';

// How long a stopped reader waits for its store to close.
const CLOSE_PATIENCE_MS = 2_000;

/** What `idgov changes` takes. */
export interface ChangesCommandOptions extends CopyTarget {
  /** Changes after this `seq`. */
  readonly since: number;
  readonly kinds?: readonly ChangeKind[] | undefined;
  /** Waits for new changes until SIGINT or SIGTERM. */
  readonly follow: boolean;
}

/** A change as a line: its fields, and the task as stored. */
function changeLine(change: ChangeRecord): string {
  return `{"seq":${change.seq},"kind":${JSON.stringify(change.kind)},"taskId":${JSON.stringify(change.taskId)},"at":${JSON.stringify(change.at)},"previousState":${JSON.stringify(change.previousState ?? null)},"state":${JSON.stringify(change.state ?? null)},"task":${change.json}}`;
}

/**
 * `idgov changes`: the feed after `since`, one change a line, in `seq` order; with `follow`, new
 * changes as they commit until SIGINT or SIGTERM, which end it with exit 0 (the last line printed is
 * where to go on from); without `follow`, a signal ends it with 130 (not all was printed). A reader
 * that stops early (`| head`) ends it quietly, at the next line.
 */
export async function changesCommand(
  options: ChangesCommandOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const stop = new AbortController();
  const stopListening = onStopSignals(() => stop.abort());
  const store = await openToRead(options).catch((error: unknown) => {
    stopListening();
    throw error;
  });
  const lines = lineWriter(out, stop.signal);
  // With --kind, where to go on from: the feed read through, past the changes left out, as far as
  // the lines the OS took from the process go.
  const position = new DeliveredPosition(options.since);
  try {
    const read = (after: number, onPosition: (seq: number) => void) =>
      store.changeRows({
        after,
        kinds: options.kinds,
        follow: options.follow,
        signal: stop.signal,
        onPosition: (seq) => {
          position.readThrough(seq);
          onPosition(seq);
        },
      });
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const changes = options.follow
      ? followedThroughOutages(read, options.since, stop.signal, say)
      : read(options.since, () => {});
    for await (const change of changes) {
      if (stop.signal.aborted || !(await lines.write(changeLine(change), position.written(change.seq))))
        break;
    }
    // Not said beside an error: where to go on from is then not known. Said before anything else can
    // end the process: read to its end, once the reader has taken every line; stopped, at once.
    if (options.kinds?.length) {
      await abortable(position.settled(), stop.signal).catch(() => {});
      // A write the OS finished reports its line at the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      process.stderr.write(
        `idgov changes: read through seq ${position.seq}: go on with --since ${position.seq}\n`,
      );
    }
  } finally {
    stopListening();
    // A follower's end is a signal; a read of what is there that a signal cut short did not print
    // all there was, and says so.
    const code = options.follow ? EXIT.done : EXIT.interrupted;
    if (stop.signal.aborted) process.exitCode = code;
    // Stopped while its reader does not read, the process ends now rather than when the reader reads
    // (it goes on from the last whole line it got, or from the position said): the line in flight is
    // dropped, or cut short. Only exiting drops it: stdout cannot be closed.
    if (stop.signal.aborted && out === process.stdout && position.inFlight) process.exit(code);
    // A reader has nothing to commit: stopped, it waits for its store to close only so long, since a
    // read in flight on a connection gone half-open would hold the close for ever.
    const closed = stop.signal.aborted
      ? await Promise.race([
          store.close().then(() => true),
          wait(CLOSE_PATIENCE_MS, { keepAlive: false }).then(() => false),
        ])
      : await store.close().then(() => true);
    if (stop.signal.aborted && out === process.stdout && !closed) process.exit(code);
  }
}

/**
 * `idgov changes prune`: deletes the changes before `before`, saying how many on stderr. The copy
 * must exist and have a feed: a mistyped path is refused, not made into an empty copy.
 */
export async function pruneChangesCommand(options: CopyTarget & { readonly before: number }): Promise<void> {
  const reader = await openToRead(options);
  try {
    // Reads nothing, but says what is wrong with the copy or its feed, before anything is written:
    // past the feed's end, which tells only that there is a feed.
    await reader
      .changeRows({ after: Number.MAX_SAFE_INTEGER })
      .next()
      .catch((error: unknown) => {
        if (!(error instanceof ChangesAheadError)) throw error;
      });
    if (options.postgres !== undefined) {
      report(await reader.pruneChanges(options.before), options.before);
      return;
    }
  } finally {
    await reader.close();
  }
  const { SqliteSyncStore } = await import('../sync/sqlite/store.ts');
  const writer = new SqliteSyncStore({ path: options.db ?? '' });
  try {
    report(await writer.pruneChanges(options.before), options.before);
  } finally {
    await writer.close();
  }
}

function report(pruned: number, before: number): void {
  process.stderr.write(`Pruned ${pruned} change${pruned === 1 ? '' : 's'} before seq ${before}.\n`);
}
