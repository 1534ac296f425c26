/**
 * The task copy in one SQLite file, through `node:sqlite`: the work of `SqliteSyncStore`, done in
 * its worker thread (thread.ts), where `node:sqlite`'s synchronous writes hold no event loop
 * that pages are fetched on.
 *
 * @internal
 * @module
 */

import { isoTime } from '../../internal/time.ts';
import { FREE_SQL } from '../../stores/lease.ts';
import { SqliteFile } from '../../stores/sqlite-file.ts';
import type { ReadChanges } from '../changes.ts';
import type { ReadBatch } from '../copy-rows.ts';
import type { CopyStatus } from '../copy-status.ts';
import type {
  CommitCounts,
  CopyIdentity,
  CopyState,
  PageCommit,
  PageCommitResult,
  RefreshBatch,
  RunEnd,
  SyncLease,
  SyncRun,
  SyncStore,
  SyncWindow,
  SyncWindowPlan,
} from '../store.ts';
import { ChangeWriter, pruneChangeRows, readChangeBatch } from './changes.ts';
import { assertHeld, OWNER_HEARTBEAT_MS, releaseCopy, stillHeld, takeCopy } from './holder.ts';
import { endLeases, heldLeases, renewLeases } from './leases.ts';
import type { SqliteCopyOptions } from './options.ts';
import { checkCopy, hasCompletedRun, readRows, readStatus } from './read.ts';
import { claimRefresh, refreshDue } from './refresh.ts';
import { putExpanded, upsertTasks, vanishLeased, vanishUnseen } from './rows.ts';
import { SQLITE_SYNC_SCHEMA } from './schema.ts';
import { claim, commitWindow, ownedTasks, split } from './windows.ts';

/** The SQLite copy's work, behind `SqliteSyncStore`. */
export class SqliteCopy implements SyncStore {
  // Leases go by this thread's monotonic clock: one process holds the copy (every lease left is
  // freed when it takes it), so none is compared across machines, and a wall clock put right moves none.
  readonly #clock = () => performance.timeOrigin + performance.now();
  readonly #file: SqliteFile;
  readonly #holder: string;
  readonly #feed: ChangeWriter;
  readonly #heartbeat: ReturnType<typeof setInterval> | undefined;

  /** `holder`: the store object's ID, the same for every thread it starts (one may die). */
  constructor(options: SqliteCopyOptions) {
    this.#holder = options.holder;
    this.#file = new SqliteFile({
      path: options?.path,
      busyTimeoutMs: options?.busyTimeoutMs,
      holds: 'task copy',
      schema: SQLITE_SYNC_SCHEMA,
      // Each commit reaches the disk before readers see it: a commit that power loss undid would give
      // its feed's seq numbers to the next changes, and a reader past them would never see those.
      synchronous: 'FULL',
      // A task's JSON is a couple of KiB: 8 KiB pages hold three or four.
      pageSize: 8192,
      readOnly: options.readOnly,
      stop: options.stop,
    });
    this.#feed = new ChangeWriter(this.#file, options.changeFeed ?? 'all');
    if (options.readOnly) {
      this.#heartbeat = undefined;
      checkCopy(this.#file);
      return;
    }
    // Said from this thread, so that it goes on while the process's event loop is busy.
    this.#heartbeat = setInterval(() => {
      try {
        this.#file.write(() => stillHeld(this.#file, this.#holder));
      } catch {
        // A lock held past busyTimeoutMs: the next beat says it.
      }
    }, OWNER_HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async endRun(run: SyncRun): Promise<void> {
    this.#file.write(() => {
      const ended = this.#file
        .sql('DELETE FROM idgov_sync_runs WHERE id = ? AND finished_at IS NULL')
        .run(run.id);
      if (Number(ended.changes) > 0)
        this.#file.sql('DELETE FROM idgov_sync_windows WHERE run_id = ?').run(run.id);
    });
  }

  async open(identity: CopyIdentity): Promise<CopyState> {
    return this.#file.write(() => {
      takeCopy(this.#file, identity, this.#holder);
      // This process holds the copy now: a lease left was its last holder's, who is gone.
      this.#file.sql(`UPDATE idgov_sync_windows SET ${FREE_SQL} WHERE lease_token IS NOT NULL`).run();
      this.#file.sql(`UPDATE idgov_tasks SET ${FREE_SQL} WHERE lease_token IS NOT NULL`).run();
      const last = this.#file
        .sql(
          `SELECT (SELECT started_at FROM idgov_sync_runs WHERE finished_at IS NOT NULL
                ORDER BY id DESC LIMIT 1) AS at,
             (SELECT started_at FROM idgov_sync_runs WHERE finished_at IS NOT NULL
                AND (kind = 'full' OR acted_after_ms IS NOT NULL) ORDER BY id DESC LIMIT 1) AS acted,
             (SELECT min(created_at) FROM idgov_tasks) AS earliest`,
        )
        .get() as { at: number | null; acted: number | null; earliest: string | null };
      return {
        lastRunStartedAt: last.at ?? undefined,
        actedSeenSince: last.acted ?? undefined,
        earliestCreatedAt: last.earliest === null ? undefined : Date.parse(last.earliest),
      };
    });
  }

  async unfinishedRun(): Promise<SyncRun | undefined> {
    return this.#file.read(() => this.#unfinished());
  }

  #unfinished(): SyncRun | undefined {
    const row = this.#file
      .sql(
        'SELECT id, kind, started_at, unordered FROM idgov_sync_runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1',
      )
      .get() as { id: number; kind: SyncRun['kind']; started_at: number; unordered: number } | undefined;
    return (
      row && {
        id: row.id,
        kind: row.kind,
        startedAt: row.started_at,
        resumed: true,
        ...(row.unordered === 1 ? { unordered: true } : {}),
      }
    );
  }

  async beginRun(
    kind: SyncRun['kind'],
    startedAt: number,
    windows: readonly SyncWindowPlan[],
  ): Promise<SyncRun> {
    return this.#file.write(() => {
      const unfinished = this.#unfinished();
      if (unfinished) return unfinished;
      const { lastInsertRowid } = this.#file
        .sql('INSERT INTO idgov_sync_runs (kind, started_at, acted_after_ms) VALUES (?, ?, ?)')
        .run(kind, startedAt, windows.find((w) => w.actedAfter !== undefined)?.actedAfter ?? null);
      const id = Number(lastInsertRowid);
      const add = this.#file.sql(
        'INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, acted_after_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      for (const { from, to, actedAfter } of windows)
        add.run(id, from, to, from, from, to, actedAfter ?? null);
      return { id, kind, startedAt, resumed: false };
    });
  }

  async claimWindow(run: SyncRun, lease: SyncLease): Promise<SyncWindow | undefined> {
    return this.#file.write(() => claim(this.#file, run, lease, this.#clock()));
  }

  async splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number; readonly pair?: boolean },
  ): Promise<boolean> {
    return this.#file.write(() => split(this.#file, run, limits));
  }

  async commitPage(
    run: SyncRun,
    window: SyncWindow,
    page: PageCommit,
    lease: SyncLease,
  ): Promise<PageCommitResult> {
    return this.#file.write(() => {
      assertHeld(this.#file, this.#holder);
      const moved = commitWindow(this.#file, window, page, lease, this.#clock());
      // Lost, or its order changed under the page: nothing of it is written.
      if (moved.lost || moved.order !== undefined)
        return { ...moved, counts: { new: 0, changed: 0, deleted: 0 } };
      if (page.actedCut)
        this.#file.sql('UPDATE idgov_sync_runs SET acted_after_ms = NULL WHERE id = ?').run(run.id);
      if (page.unordered)
        this.#file.sql('UPDATE idgov_sync_runs SET unordered = 1 WHERE id = ? AND unordered = 0').run(run.id);
      const unordered =
        this.#file.sql('SELECT unordered FROM idgov_sync_runs WHERE id = ?').get(run.id)?.unordered === 1;
      const syncedAt = isoTime(page.syncedAt);
      // The order the page was fetched in is the window's (checked above): an end of a burst.
      const burstEnd = page.order !== undefined && page.order !== 'created';
      const tasks = ownedTasks(this.#file, window.id, page.tasks);
      const counts = upsertTasks(this.#file, run, tasks, syncedAt, this.#feed, burstEnd);
      putExpanded(this.#file, page.expanded, syncedAt);
      return { ...moved, counts, ...(unordered ? { unordered } : {}) };
    });
  }

  async claimOpenTasks(run: SyncRun, lease: SyncLease, limit: number): Promise<string[]> {
    return this.#file.write(() => claimRefresh(this.#file, run, lease, limit, this.#clock()));
  }

  async commitRefresh(run: SyncRun, batch: RefreshBatch, lease: SyncLease): Promise<CommitCounts> {
    return this.#file.write(() => {
      assertHeld(this.#file, this.#holder);
      const syncedAt = isoTime(batch.syncedAt);
      // Only the tasks this lease still holds: a holder whose lease ran out and passed on writes nothing.
      const mine = new Set(
        (
          this.#file.sql('SELECT id FROM idgov_tasks WHERE lease_token = ?').all(lease.holder) as Array<{
            id: string;
          }>
        ).map((row) => row.id),
      );
      const counts = upsertTasks(
        this.#file,
        run,
        batch.tasks.filter((task) => mine.has(task.id)),
        syncedAt,
        this.#feed,
      );
      counts.deleted += vanishLeased(this.#file, batch.vanished, lease.holder, syncedAt, this.#feed);
      if (mine.size > 0) putExpanded(this.#file, batch.expanded ?? [], syncedAt);
      this.#file.sql(`UPDATE idgov_tasks SET ${FREE_SQL} WHERE lease_token = ?`).run(lease.holder);
      return counts;
    });
  }

  async finishRun(run: SyncRun, finishedAt: number): Promise<RunEnd> {
    return this.#file.write(() => {
      const state = this.#file
        .sql(
          `SELECT finished_at IS NOT NULL AS finished,
             EXISTS (SELECT 1 FROM idgov_sync_windows WHERE run_id = ?1 AND state <> 'done') AS windows
           FROM idgov_sync_runs WHERE id = ?1`,
        )
        .get(run.id) as { finished: number; windows: number } | undefined;
      // A run gone (ended unfinished by a full run) is over too, not completed.
      if (!state) return { finished: true, vanished: 0, superseded: true };
      if (state.finished) return { finished: true, vanished: 0 };
      if (state.windows || refreshDue(this.#file, run)) {
        return { finished: false, vanished: 0, held: heldLeases(this.#file, run, this.#clock()) };
      }
      const vanished =
        run.kind === 'full' ? vanishUnseen(this.#file, run, isoTime(finishedAt), this.#feed) : 0;
      this.#file.sql('UPDATE idgov_sync_runs SET finished_at = ? WHERE id = ?').run(finishedAt, run.id);
      this.#file.sql('DELETE FROM idgov_sync_windows WHERE run_id = ?').run(run.id);
      return { finished: true, vanished };
    });
  }

  async renewLeases(holders: readonly string[], ms: number): Promise<string[]> {
    return this.#file.write(() => renewLeases(this.#file, holders, ms, this.#clock()));
  }

  async endLeases(holders: readonly string[]): Promise<void> {
    this.#file.write(() => endLeases(this.#file, holders));
  }

  /** A batch of `SqliteSyncStore.rows()`, and of `changes()`. */
  readRows: ReadBatch = async (after, limit, query) => readRows(this.#file, after, limit, query);
  readChanges: ReadChanges = async (after, limit, kinds) => readChangeBatch(this.#file, after, limit, kinds);

  async hasCompletedRun(): Promise<boolean> {
    return this.#file.read(() => hasCompletedRun(this.#file));
  }

  async status(): Promise<CopyStatus> {
    return readStatus(this.#file);
  }

  async pruneChanges(before: number): Promise<number> {
    return pruneChangeRows(this.#file, before);
  }

  async release(): Promise<void> {
    // Even stopping: a hold left behind would refuse the next sync until it went stale.
    this.#file.write(() => releaseCopy(this.#file, this.#holder), 'wait');
  }

  async close(): Promise<void> {
    clearInterval(this.#heartbeat);
    try {
      if (this.#heartbeat !== undefined) await this.release();
    } catch {
      // Closing must not fail for a hold it could not give up: the next open sees a dead holder.
    }
    this.#file.close();
  }
}
