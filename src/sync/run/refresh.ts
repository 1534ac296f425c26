/**
 * A run's refresh of the tasks its windows did not fetch (for an incremental run, those the copy
 * holds as open; for a full run, every live one), a batch at a time: each fetched by ID and
 * committed in one transaction, those the service no longer returns marked vanished.
 *
 * @module
 */
import type { TaskView } from '../../../schemas/task-search.ts';
import { ResponseTooLargeError } from '../../core/errors/errors.ts';
import { wait } from '../../internal/wait.ts';
import type { SyncLease } from '../store.ts';
import type { RunContext } from './context.ts';
import { syncRequest } from './request.ts';
import { expandedRows, taskRows } from './rows.ts';

/** Open tasks a cursor claims at once to refresh. */
export const REFRESH_BATCH = 100;

/** How long a refresh waits before it asks again for the few tasks an answer left out. */
export const REASK_DELAY_MS = 2_000;

/**
 * Refreshes `ids`, a batch of the tasks claimed under `lease` (`SyncStore.claimOpenTasks`),
 * committed in one transaction.
 */
export async function refreshTasks(ctx: RunContext, lease: SyncLease, ids: readonly string[]): Promise<void> {
  const { options, store, run, meter, signal } = ctx;
  let pages = 0;
  // The objects the answers inline (with `expand`), which the refreshed tasks point to.
  const expanded: unknown[] = [];
  // By refs, a page at a time: halved, as the windows' pages are, when an answer is too large.
  const byRefs = async (refs: readonly string[]) => {
    const views: Array<TaskView | null> = [];
    for (let rest = refs; rest.length > 0; ) {
      const size = ctx.pageSize.current;
      const batch = rest.slice(0, size);
      try {
        const search = options.client.tasks.search(
          { ...syncRequest(options), refs: batch.map((id) => ({ id })), pageSize: size },
          { signal },
        );
        const found: Array<TaskView | null> = [];
        const inlined: unknown[] = [];
        for await (const page of search.pages()) {
          found.push(...(page.list ?? []));
          inlined.push(...(page.expanded ?? []));
          pages += 1;
        }
        views.push(...found);
        expanded.push(...inlined);
        rest = rest.slice(size);
      } catch (error) {
        if (!(error instanceof ResponseTooLargeError && ctx.pageSize.halve(size, error))) throw error;
      }
    }
    return views;
  };
  const views = await byRefs(ids);
  let tasks = taskRows(views, ctx.refuse);
  let missing = absent(ids, tasks);
  // A task missing from the answer is marked vanished (deleted): asked again first, a moment later,
  // so that a glitch of the service (a null in the list, a task left out, a search index or replica
  // catching up) does not delete a task from the copy, and write a vanish to the feed that never was.
  if (missing.length > 0) {
    // Not for a batch mostly gone (a purge, not a glitch): a full run after a mass purge would
    // otherwise wait at every batch.
    if (missing.length * 2 <= ids.length) await wait(REASK_DELAY_MS, { signal });
    const again = await byRefs(missing);
    // One row an ID, should the service answer with a task twice.
    tasks = taskRows([...views, ...again], ctx.refuse);
    missing = absent(missing, tasks);
  }
  const counts = await store.commitRefresh(
    run,
    { tasks, vanished: missing, expanded: expandedRows(expanded), syncedAt: options.now() },
    lease,
  );
  meter.refreshed(counts, pages, tasks.length);
}

/** The IDs of `ids` no row of `rows` holds. */
function absent(ids: readonly string[], rows: readonly { readonly id: string }[]): string[] {
  const returned = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !returned.has(id));
}
