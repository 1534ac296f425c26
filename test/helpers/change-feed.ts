import type { ChangeFeed, ChangeRecord, CopyReader, CopyRecord } from '../../src/sync/index.ts';

/** What the copy holds of a task, as the feed can rebuild it. */
export interface Folded {
  readonly task: unknown;
  readonly deleted: boolean;
  readonly vanished: boolean;
}

/** The copy a feed describes: each change applied in `seq` order, from nothing. */
export function fold(changes: Iterable<ChangeRecord>): Map<string, Folded> {
  const out = new Map<string, Folded>();
  for (const change of changes) {
    const task = JSON.parse(change.json) as { deletedAt?: string | null };
    out.set(
      change.taskId,
      change.kind === 'vanished'
        ? { task, deleted: true, vanished: true }
        : { task, deleted: task.deletedAt != null, vanished: false },
    );
  }
  return out;
}

/** The copy's rows (deleted ones too) in the shape of {@link fold}. */
export function asFolded(rows: Iterable<CopyRecord>): Map<string, Folded> {
  const out = new Map<string, Folded>();
  for (const row of rows) {
    out.set(row.id, {
      task: JSON.parse(row.json),
      deleted: row.deletedAt !== undefined,
      vanished: row.vanished,
    });
  }
  return out;
}

/**
 * What is wrong with a feed read from `seq` 0 beside the copy it was written with: `seq` not
 * increasing, a change that leaves a task as its change before left it (the feed logged a fetch, not
 * a change), and any task whose folded state differs from the copy's (a change missing or extra).
 */
export function feedProblems(copy: Map<string, Folded>, feed: readonly ChangeRecord[]): string[] {
  const out: string[] = [];
  const last = new Map<string, string>();
  let seq = 0;
  for (const change of feed) {
    if (change.seq <= seq) out.push(`feed: seq ${change.seq} after ${seq}`);
    seq = change.seq;
    const state = JSON.stringify(fold([change]).get(change.taskId));
    if (last.get(change.taskId) === state)
      out.push(`feed: ${change.taskId} ${change.kind} at seq ${change.seq} changes nothing`);
    last.set(change.taskId, state);
  }
  const folded = fold(feed);
  for (const id of new Set([...copy.keys(), ...folded.keys()])) {
    const want = JSON.stringify(copy.get(id));
    if (JSON.stringify(folded.get(id)) !== want)
      out.push(`feed: ${id} folds to another state than the copy's`);
  }
  return out;
}

/** Every item of an async iterable. */
export async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * The changes between two states of a copy, one a task whose JSON, deletion or vanishing differs,
 * with the kind the feed must give it: what a feed written between them must hold, exactly.
 */
export function expectedChanges(
  before: Map<string, Folded>,
  after: Map<string, Folded>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, now] of after) {
    const was = before.get(id);
    if (was && JSON.stringify(was) === JSON.stringify(now)) continue;
    if (now.vanished) out.set(id, 'vanished');
    else if (!was) out.set(id, now.deleted ? 'deleted' : 'created');
    else if (now.deleted && !was.deleted) out.set(id, 'deleted');
    else out.set(id, 'changed');
  }
  return out;
}

/** The changes as a map of task ID to kind; throws on a task changed twice (the feed would not be exact). */
export function byTask(changes: readonly ChangeRecord[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const change of changes) {
    if (out.has(change.taskId))
      throw new Error(`task ${change.taskId} changed twice: ${out.get(change.taskId)}, ${change.kind}`);
    out.set(change.taskId, change.kind);
  }
  return out;
}

/** A copy's rows (in the shape of {@link fold}) and its whole feed, read through `store`, which is then closed. */
export async function copyAndFeed(store: CopyReader & ChangeFeed & { close(): Promise<void> }) {
  try {
    return {
      copy: asFolded(await all(store.rows({ includeDeleted: true }))),
      feed: await all(store.changeRows()),
    };
  } finally {
    await store.close();
  }
}
