/**
 * The windows a run begins with: a full run's stretches of creation time, one a cursor, and an
 * incremental run's new tasks and tasks acted on since.
 *
 * @module
 */
import type { CopyState, SyncWindowPlan } from '../store.ts';

/**
 * The first windows of a full run: `from..to` in `count` equal stretches of time, sharing their
 * ends (none when `from` is undefined: the tenant has no task).
 */
export function firstWindows(from: number | undefined, to: number, count: number): SyncWindowPlan[] {
  if (from === undefined) return [];
  const span = Math.max(0, to - from);
  const parts = Math.max(1, Math.min(count, span));
  return Array.from({ length: parts }, (_, i) => ({
    from: from + Math.floor((span * i) / parts),
    to: i === parts - 1 ? to : from + Math.floor((span * (i + 1)) / parts),
  }));
}

/**
 * The first windows of an incremental run: one of the tasks created since the last run started
 * (less `overlapMs`, for clocks and commits late to show), and, when the copy holds older tasks and
 * `applies()` says the service applies `includeActedAfter`, one of those acted on since the last
 * run that saw such tasks started (less the overlap). One each, split only where their first pages
 * find tasks: their stretches of time are mostly empty.
 */
export async function incrementalWindows(
  copy: CopyState,
  startedAt: number,
  overlapMs: number,
  applies: () => Promise<boolean>,
): Promise<SyncWindowPlan[]> {
  const since = (copy.lastRunStartedAt ?? startedAt) - overlapMs;
  const windows: SyncWindowPlan[] = [{ from: since, to: startedAt }];
  const earliest = copy.earliestCreatedAt;
  if (earliest !== undefined && earliest < since && (await applies())) {
    const actedAfter = (copy.actedSeenSince ?? copy.lastRunStartedAt ?? startedAt) - overlapMs;
    windows.push({ from: earliest, to: since, actedAfter });
  }
  return windows;
}
