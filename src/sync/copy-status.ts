/**
 * Where a task copy stands, as `store.status()` and `idgov status` tell it: what it holds, its
 * last completed run, the run under way or stopped, and its change feed's last `seq`. Read from
 * the rows of each backend's own queries by one rule, so both tell it alike. Loads no schema
 * (the SQLite store's thread reads it).
 *
 * @module
 */
import { isoTime } from '../internal/time.ts';
import { notHeldSql } from '../stores/lease.ts';
import type { SyncRun } from './store.ts';

/**
 * Where a task copy stands.
 *
 * @group Task sync
 */
export interface CopyStatus {
  /** Tasks not deleted, by state (`TASK_STATE_OPEN`, ...; one without a state under `""`). */
  readonly tasks: Readonly<Record<string, number>>;
  /** Deleted tasks, vanished ones (which the service no longer returns) among them. */
  readonly deleted: number;
  /** Vanished tasks: deleted because a full run no longer found them. */
  readonly vanished: number;
  /** The last run that completed; none until the first one does, and the copy holds part of the tenant. */
  readonly lastCompletedRun?: { readonly kind: SyncRun['kind']; readonly finishedAt: string } | undefined;
  /**
   * The run begun and not completed: under way, or stopped (`idgov sync` resumes it). Its windows
   * done and left, and the pages and tasks they committed.
   */
  readonly unfinishedRun?:
    | {
        readonly kind: SyncRun['kind'];
        readonly startedAt: string;
        readonly windowsDone: number;
        readonly windowsLeft: number;
        readonly pages: number;
        readonly tasks: number;
      }
    | undefined;
  /**
   * The change feed's last `seq` handed out (0: none yet); a reader past it waits for new changes.
   * Undefined: the copy has no feed (made by an earlier release; a sync of this one adds it).
   */
  readonly lastSeq: number | undefined;
  /**
   * Who is at work on the copy as it is read: the windows of a run being paged and the open tasks
   * being refreshed, each under a lease its sync renews while it works (`windowsHeld`,
   * `tasksHeld`), and those whose lease ran out without being let go (`windowsRanOut`,
   * `tasksRanOut`): the sync that held them stopped (killed, or cut off from the store), and the
   * next sync takes them over. Judged by the clock the leases were written by: the database
   * server's on PostgreSQL, this machine's on SQLite. An unfinished run with nothing held has no
   * sync at work on it, or one between two pieces of work (for a moment).
   */
  readonly leases: {
    readonly windowsHeld: number;
    readonly tasksHeld: number;
    readonly windowsRanOut: number;
    readonly tasksRanOut: number;
  };
  /**
   * SQLite: the process that holds the copy (one syncs it at a time), if one does. `gone`: it ended
   * on this machine without letting the copy go, or has not said it still holds it for 30 s; the
   * next sync takes the copy over, and the leases it held count as run out. Undefined on
   * PostgreSQL, whose workers hold windows, not the copy.
   */
  readonly syncProcess?:
    | { readonly pid: number; readonly host: string; readonly lastSeen: string; readonly gone: boolean }
    | undefined;
}

/** A count as a driver gives it (pg: text for `bigint`). */
type Count = number | string | bigint | null;
/** A truth as a driver gives it (SQLite: 0 or 1). */
type Flag = boolean | number | null;

/** The rows of a backend's status queries, as its driver gives them. */
export interface StatusRows {
  /** One row a state and deletion of the tasks. */
  readonly counts: ReadonlyArray<{ state: string | null; deleted: Flag; vanished: Flag; n: Count }>;
  /** The last completed run (`finished_at`, Unix ms), if any. */
  readonly completed: { kind: string; finished_at: Count } | undefined;
  /** The unfinished run, with its windows' sums, if any. */
  readonly unfinished:
    | { kind: string; started_at: Count; done: Count; left: Count; pages: Count; tasks: Count }
    | undefined;
  /** The feed's counter: null when none was handed out yet, undefined when the copy has no feed. */
  readonly lastSeq: Count | undefined;
  /** The leased windows and tasks, counted by whether their lease still holds. */
  readonly leases: ReadonlyArray<{ what: 'windows' | 'tasks'; ran_out: Flag; n: Count }>;
  /** SQLite: the process holding the copy (`last_seen`, Unix ms), if one does. */
  readonly holder?: { pid: number; host: string; last_seen: number; gone: boolean } | undefined;
}

const n = (value: Count | undefined) => Number(value ?? 0);
const yes = (value: Flag) => value === true || value === 1;

/**
 * SQL giving {@link StatusRows.leases}: the leased rows of the `windows` and `tasks` tables, by
 * whether their lease ran out at the time in placeholder `now`.
 */
export function leaseCountsSql(windows: string, tasks: string, now: string): string {
  const counted = (what: string, table: string) =>
    `SELECT '${what}' AS what, ${notHeldSql(now)} AS ran_out, count(*) AS n FROM ${table} WHERE lease_token IS NOT NULL GROUP BY 2`;
  return `${counted('windows', windows)} UNION ALL ${counted('tasks', tasks)}`;
}

/** The status the rows say. */
export function copyStatus(rows: StatusRows): CopyStatus {
  const tasks: Record<string, number> = {};
  let deleted = 0;
  let vanished = 0;
  for (const row of rows.counts) {
    if (yes(row.deleted)) {
      deleted += n(row.n);
      if (yes(row.vanished)) vanished += n(row.n);
    } else tasks[row.state ?? ''] = (tasks[row.state ?? ''] ?? 0) + n(row.n);
  }
  const { completed, unfinished, holder } = rows;
  const leases = { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 };
  for (const row of rows.leases) {
    // The one process that writes a SQLite copy is gone: nothing will renew what it held.
    const ranOut = yes(row.ran_out) || holder?.gone === true;
    leases[`${row.what}${ranOut ? 'RanOut' : 'Held'}`] += n(row.n);
  }
  return {
    tasks,
    deleted,
    vanished,
    lastCompletedRun: completed && {
      kind: completed.kind as SyncRun['kind'],
      finishedAt: isoTime(n(completed.finished_at)),
    },
    unfinishedRun: unfinished && {
      kind: unfinished.kind as SyncRun['kind'],
      startedAt: isoTime(n(unfinished.started_at)),
      windowsDone: n(unfinished.done),
      windowsLeft: n(unfinished.left),
      pages: n(unfinished.pages),
      tasks: n(unfinished.tasks),
    },
    lastSeq: rows.lastSeq === undefined ? undefined : n(rows.lastSeq),
    leases,
    syncProcess: holder && {
      pid: holder.pid,
      host: holder.host,
      lastSeen: isoTime(holder.last_seen),
      gone: holder.gone,
    },
  };
}
