/**
 * The task copy in one SQLite file, through `node:sqlite` (Node 22.5+; no native dependency).
 * Import it from `@idgov/sdk/sync/sqlite`.
 *
 * @module sync/sqlite
 */
import { SqliteFile } from '../stores/sqlite-file.ts';
import { releaseCopy, takeCopy } from './sqlite-holder.ts';
import { putExpanded, upsertTasks } from './sqlite-rows.ts';
import { SQLITE_SYNC_SCHEMA } from './sqlite-schema.ts';
import { claim, commitWindow, split } from './sqlite-windows.ts';
import type {
  CommitCounts,
  CopyIdentity,
  CopyState,
  ExpandedRow,
  SyncRun,
  SyncStore,
  SyncWindow,
  TaskRow,
} from './store.ts';

/**
 * Options of {@link SqliteSyncStore}.
 *
 * @group Task sync
 */
export interface SqliteSyncStoreOptions {
  /** The database file; created with its tables if missing. */
  readonly path: string;
  /** How long to wait for another connection's write (a reader of the copy), in ms. Default 5,000. */
  readonly busyTimeoutMs?: number | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A task copy in one SQLite file, for one process at a time: the tables `idgov_tasks` and
 * `idgov_expanded` that you query, and the sync's checkpoints beside them, committed together.
 * Every commit is flushed to disk before it returns (WAL, `synchronous = FULL`), so a run killed at
 * any instant resumes where its last commit left it.
 *
 * @example
 * const store = new SqliteSyncStore({ path: 'tasks.db' });
 *
 * @group Task sync
 */
export class SqliteSyncStore implements SyncStore {
  readonly #file: SqliteFile;
  readonly #holder = crypto.randomUUID();
  #owned = false;

  constructor(options: SqliteSyncStoreOptions) {
    this.#file = new SqliteFile({
      path: options?.path,
      busyTimeoutMs: options?.busyTimeoutMs,
      holds: 'task copy',
      schema: SQLITE_SYNC_SCHEMA,
    });
  }

  /** The database file. */
  get path(): string {
    return this.#file.path;
  }

  async open(identity: CopyIdentity): Promise<CopyState> {
    return this.#file.write(() => {
      takeCopy(this.#file, identity, this.#holder);
      this.#owned = true;
      // This process holds the copy now: a window left active was its owner's, who is gone.
      this.#file.sql("UPDATE idgov_sync_windows SET state = 'free' WHERE state = 'active'").run();
      const last = this.#file
        .sql('SELECT max(started_at) AS at FROM idgov_sync_runs WHERE finished_at IS NOT NULL')
        .get() as { at: number | null };
      return { lastRunStartedAt: last.at ?? undefined };
    });
  }

  async unfinishedRun(): Promise<SyncRun | undefined> {
    const row = this.#file
      .sql(
        'SELECT id, kind, started_at, refreshed_through FROM idgov_sync_runs WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1',
      )
      .get() as
      | { id: number; kind: SyncRun['kind']; started_at: number; refreshed_through: string | null }
      | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      kind: row.kind,
      startedAt: row.started_at,
      refreshedThrough: row.refreshed_through ?? undefined,
      resumed: true,
    };
  }

  async beginRun(
    kind: SyncRun['kind'],
    startedAt: number,
    windows: ReadonlyArray<{ from: number; to: number }>,
  ): Promise<SyncRun> {
    return this.#file.write(() => {
      const { lastInsertRowid } = this.#file
        .sql('INSERT INTO idgov_sync_runs (kind, started_at) VALUES (?, ?)')
        .run(kind, startedAt);
      const id = Number(lastInsertRowid);
      const add = this.#file.sql(
        'INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const { from, to } of windows) add.run(id, from, to, from, from, to);
      return { id, kind, startedAt, refreshedThrough: undefined, resumed: false };
    });
  }

  async claimWindow(run: SyncRun): Promise<SyncWindow | undefined> {
    return this.#file.write(() => claim(this.#file, run));
  }

  async splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number },
  ): Promise<boolean> {
    return this.#file.write(() => split(this.#file, run, limits));
  }

  async commitPage(
    run: SyncRun,
    window: SyncWindow,
    page: Parameters<SyncStore['commitPage']>[2],
  ): Promise<{ readonly to: number; readonly done: boolean; readonly counts: CommitCounts }> {
    return this.#file.write(() => {
      const syncedAt = iso(page.syncedAt);
      const counts = upsertTasks(this.#file, run, page.tasks, syncedAt);
      putExpanded(this.#file, page.expanded, syncedAt);
      const { to, done } = commitWindow(this.#file, window, page);
      return { to, done, counts };
    });
  }

  async openTaskIds(run: SyncRun, afterId: string | undefined, limit: number): Promise<string[]> {
    const rows = this.#file
      .sql(
        "SELECT id FROM idgov_tasks WHERE state = 'TASK_STATE_OPEN' AND deleted_at IS NULL AND seen_run <> ? AND id > ? ORDER BY id LIMIT ?",
      )
      .all(run.id, afterId ?? '', limit) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  async commitRefresh(run: SyncRun, batch: Parameters<SyncStore['commitRefresh']>[1]): Promise<CommitCounts> {
    return this.#file.write(() => {
      const syncedAt = iso(batch.syncedAt);
      const counts = upsertTasks(this.#file, run, batch.tasks, syncedAt);
      const gone = this.#file.sql(
        'UPDATE idgov_tasks SET deleted_at = coalesce(deleted_at, ?), vanished = 1, synced_at = ? WHERE id = ? AND deleted_at IS NULL',
      );
      for (const id of batch.vanished) counts.deleted += Number(gone.run(syncedAt, syncedAt, id).changes);
      this.#file
        .sql('UPDATE idgov_sync_runs SET refreshed_through = ? WHERE id = ?')
        .run(batch.through, run.id);
      return counts;
    });
  }

  async finishRun(run: SyncRun, finishedAt: number): Promise<number> {
    return this.#file.write(() => {
      let vanished = 0;
      if (run.kind === 'full') {
        const at = iso(finishedAt);
        vanished = Number(
          this.#file
            .sql(
              'UPDATE idgov_tasks SET deleted_at = coalesce(deleted_at, ?), vanished = 1 WHERE seen_run <> ? AND vanished = 0',
            )
            .run(at, run.id).changes,
        );
      }
      this.#file.sql('UPDATE idgov_sync_runs SET finished_at = ? WHERE id = ?').run(finishedAt, run.id);
      this.#file.sql('DELETE FROM idgov_sync_windows WHERE run_id = ?').run(run.id);
      return vanished;
    });
  }

  async release(): Promise<void> {
    if (!this.#owned) return;
    this.#owned = false;
    this.#file
      .sql("DELETE FROM idgov_sync_meta WHERE key = 'owner' AND json_extract(value, '$.holder') = ?")
      .run(this.#holder);
  }

  async close(): Promise<void> {
    try {
      await this.release();
    } catch {
      // Closing must not fail for a hold it could not give up: the next open sees a dead holder.
    }
    this.#file.close();
  }
}
