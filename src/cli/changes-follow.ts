/**
 * `idgov changes --follow` through outages of its store of any length.
 *
 * @module
 */

import { StoreError } from '../stores/store-error.ts';
import type { ChangeRecord } from '../sync/changes.ts';

/**
 * The changes `open` reads after a seq, read on through outages: a follower's read waits a store's transient failure
 * out for half a minute, then throws it, which ends a library caller's loop, but not a process left running to follow
 * the feed. Once the store has answered (a change, or a position read through, as `open`'s second argument tells),
 * it says so once on `say` and reads again after the last seq handed out or read through, so a change is neither
 * skipped nor handed out twice, until `signal` stops it; at the first read that answers (which tells its position,
 * new changes or not), it says the store answers again. A store that never answered (a wrong host or port) and any
 * other failure end it.
 */
export async function* followedThroughOutages(
  open: (after: number, onPosition: (seq: number) => void) => AsyncIterable<ChangeRecord>,
  since: number,
  signal: AbortSignal,
  say: (line: string) => void,
): AsyncGenerator<ChangeRecord, void, undefined> {
  let through = since;
  let down = false;
  let answered = false;
  const reached = (seq: number) => {
    through = Math.max(through, seq);
    answered = true;
    if (!down) return;
    down = false;
    say(`idgov changes: the store answers again; following on after seq ${through}`);
  };
  for (;;) {
    try {
      for await (const change of open(through, reached)) {
        yield change;
        reached(change.seq);
      }
      return;
    } catch (error) {
      if (signal.aborted) return;
      if (!answered || !(error instanceof StoreError && error.transient)) throw error;
      if (!down)
        say(
          `idgov changes: the store has failed for half a minute (${error.message}); still following, on after seq ${through} once it answers`,
        );
      down = true;
    }
  }
}
