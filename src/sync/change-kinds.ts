/**
 * The kinds of change the feed records, the one rule that says which kind a fetch makes, and how
 * far a prune may reach: all a store needs of the feed where it writes, kept apart from reading it,
 * which parses tasks (the wire model), so that the SQLite store's thread loads no schema.
 *
 * @module
 */

/**
 * The kinds of change the feed records: a task new to the copy, a task whose JSON changed, one
 * the service says was deleted, and one the copy found gone from the service.
 *
 * @group Task sync
 */
export const ChangeKind = {
  CREATED: 'created',
  CHANGED: 'changed',
  DELETED: 'deleted',
  VANISHED: 'vanished',
} as const;

/** @group Task sync */
export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

/** Every {@link ChangeKind}, for checking what a caller asks for. */
export const CHANGE_KINDS: readonly ChangeKind[] = Object.values(ChangeKind);

/** What the copy held of a task before a write: whether deleted, and whether found gone (vanished). */
export interface CopiedBefore {
  readonly deleted: boolean;
  readonly vanished: boolean;
}

/**
 * The kind of change a fetch of a task makes to the copy, or undefined when it changes nothing (the
 * feed is exact: a fetch that finds the task as the copy holds it writes no row). A task new to the
 * copy is `created` (`deleted` when it arrives deleted); one the service now says is deleted, and
 * the copy held as not, is `deleted`; any other difference (its JSON, a vanished task found again)
 * is `changed`. `sameJson` compares the task's JSON as the store keeps it. The PostgreSQL store
 * says the same in SQL, in its upsert (`upsertTasksSql`).
 */
export function fetchedChangeKind(
  before: CopiedBefore | undefined,
  deletedNow: boolean,
  sameJson: boolean,
): ChangeKind | undefined {
  if (!before) return deletedNow ? ChangeKind.DELETED : ChangeKind.CREATED;
  if (deletedNow && !before.deleted) return ChangeKind.DELETED;
  if (!sameJson || before.vanished || before.deleted !== deletedNow) return ChangeKind.CHANGED;
  return undefined;
}

/**
 * Why pruning before `before` is refused when the last `seq` handed out is `last`; undefined when it
 * is not. Every change is before `last + 1`: a greater `before` is a mistyped one, which would
 * delete the whole feed as surely.
 */
export function pruneProblem(before: number, last: number): string | undefined {
  if (before <= last + 1) return undefined;
  return `before (${before}) is past the end of the change feed: its last change is seq ${last}, so ${last + 1} prunes every change. Give a seq your readers have handled.`;
}
