/**
 * The error a feed reader gets when its position is past the feed's end.
 *
 * @module
 */
import { IdGovError } from '../core/errors/errors.ts';

/**
 * The reader's position is past the last `seq` this feed ever handed out: the copy was made again
 * (a file deleted and synced anew, tables dropped) or restored from an older backup, and its feed
 * numbers its changes from the start again. Read on from the position and it would wait, then pass
 * over every change the new feed numbers up to there. Rebuild what you keep from the copy
 * (`store.rows()`, `idgov export`) and follow from `last` (or from 0, to read the new feed whole).
 *
 * @group Task sync
 */
export class ChangesAheadError extends IdGovError {
  override name = 'ChangesAheadError';
  /** The reader's position: the last `seq` it had read. */
  readonly after: number;
  /** The last `seq` this feed handed out. */
  readonly last: number;

  constructor(after: number, last: number) {
    super(
      `this reader is at seq ${after}, past the end of the change feed (its last change is seq ${last}): the copy was made again or restored from an older backup, and its seqs start over. Rebuild what you keep from the copy (store.rows(), or idgov export) and follow from seq ${last}, or from 0 to read this feed whole.`,
    );
    this.after = after;
    this.last = last;
  }
}
