/**
 * The error a feed reader gets when the changes it had yet to read were pruned.
 *
 * @module
 */
import { IdGovError } from '../core/errors/errors.ts';

/**
 * The changes after the reader's position were pruned before it read them: following on would pass
 * over them without a word, and what the reader built from the feed would miss them. `seq` numbers
 * are handed out one after another, so a gap after a position means a prune. Rebuild from the copy
 * (`store.rows()`) and follow on from `lastPruned`, or prune only what every reader has passed.
 * A reader from `seq` 0 reads what is left, without this error.
 *
 * @group Task sync
 */
export class ChangesPrunedError extends IdGovError {
  override name = 'ChangesPrunedError';
  /** The reader's position: the last `seq` it had read. */
  readonly after: number;
  /** The last `seq` of those pruned that it had not read. */
  readonly lastPruned: number;

  constructor(after: number, next: number) {
    super(
      `changes ${after + 1} to ${next - 1} of the change feed were pruned before this reader read them (it was at seq ${after}): following on would pass over them. Rebuild what you keep from the copy (store.rows()) and follow from seq ${next - 1}, and prune only seqs every reader has passed.`,
    );
    this.after = after;
    this.lastPruned = next - 1;
  }
}
