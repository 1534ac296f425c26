/**
 * The fake tenant's index of stored tasks by creation time: a search by creation time finds its
 * stretch of tasks by binary search instead of looking at every task.
 *
 * @module
 */
import type { WireTask } from './fake-data.ts';

/**
 * A task's creation time as text that sorts as time does: ISO 8601 UTC with milliseconds, as the
 * fake data writes it (compared as it is: a search of a large tenant parses nothing), or another
 * form made so; '' when missing or not a time.
 */
export function createdKey(task: WireTask): string {
  const at = task.createdAt;
  if (!at) return '';
  if (at.length === 24 && at.charCodeAt(23) === 90 /* Z */ && at.charCodeAt(10) === 84 /* T */) return at;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/** A bound of a search as a {@link createdKey}; undefined when absent, null when it is not a time (nothing matches). */
export function boundKey(at: string | null | undefined): string | null | undefined {
  if (!at) return undefined;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** The stored tasks' creation keys, and whether the tasks are stored in creation order. */
export interface CreatedIndex {
  readonly tasks: readonly WireTask[];
  readonly createdAt: ReadonlyArray<string | null | undefined>;
  readonly keys: readonly string[];
  readonly sorted: boolean;
}

const indexes = new WeakMap<readonly WireTask[], CreatedIndex>();

/**
 * The creation index of `tasks`, made again when a task was added, removed or replaced (checked by
 * identity, cheap next to parsing): tests change tasks freely.
 */
export function createdIndex(tasks: readonly WireTask[]): CreatedIndex {
  const known = indexes.get(tasks);
  if (known && unchanged(tasks, known)) return known;
  const keys = tasks.map(createdKey);
  const index: CreatedIndex = {
    tasks: [...tasks],
    createdAt: tasks.map((task) => task.createdAt),
    keys,
    // Tasks without a creation time ('') cannot be placed in a stretch of time: scan instead.
    sorted: keys.every((key, i) => key !== '' && (i === 0 || (keys[i - 1] as string) <= key)),
  };
  indexes.set(tasks, index);
  return index;
}

/**
 * Whether `tasks` are still the ones `index` was made of: the same objects, in the same places. A
 * `createdAt` changed in place is seen where a search looks (see `searchTasks`); reading every
 * task's would cost a large tenant more than the search.
 */
function unchanged(tasks: readonly WireTask[], index: CreatedIndex): boolean {
  if (tasks.length !== index.tasks.length) return false;
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i] as WireTask;
    if (task !== index.tasks[i]) return false;
  }
  return true;
}

/** The first position whose key is above `bound`, or at it too when `inclusive` (keys ascending). */
function firstPast(keys: readonly string[], bound: string, inclusive: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as string;
    if (key > bound || (inclusive && key === bound)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Forgets the index of `tasks`: a task moved in time in place was found where a search looked. */
export function forgetIndex(tasks: readonly WireTask[]): void {
  indexes.delete(tasks);
}

/**
 * The positions of the tasks created inside a search's bounds (as {@link createdKey}s), found by
 * binary search of `index`.
 */
export function stretchOf(
  index: CreatedIndex,
  after: string | null | undefined,
  before: string | null | undefined,
): { from: number; to: number } {
  const from = after ? firstPast(index.keys, after, false) : 0;
  const to = before ? firstPast(index.keys, before, true) : index.keys.length;
  return { from, to: Math.max(from, to) };
}
