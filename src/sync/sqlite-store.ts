/**
 * The task copy in one SQLite file, through `node:sqlite` (Node 22.5+; no native dependency).
 * Import it from `@idgov/sdk/sync/sqlite`.
 *
 * @module sync/sqlite
 */
import { hostname } from 'node:os';
import { ConfigurationError } from '../core/errors.ts';
import { SqliteFile } from '../stores/sqlite-file.ts';
import { SQLITE_SYNC_SCHEMA, SYNC_SCHEMA_VERSION } from './sqlite-schema.ts';
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
import { splitPlan } from './windows.ts';

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

interface WindowRow {
  id: number;
  from_ms: number;
  to_ms: number;
  cursor_ms: number;
  query_from_ms: number;
  query_to_ms: number;
  page_token: string | null;
}

interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  /** Which store object of the process holds it: two in one process are two holders. */
  readonly holder: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function windowOf(row: WindowRow): SyncWindow {
  return {
    id: row.id,
    from: row.from_ms,
    to: row.to_ms,
    cursor: row.cursor_ms,
    queryFrom: row.query_from_ms,
    queryTo: row.query_to_ms,
    token: row.page_token ?? undefined,
  };
}

/** Whether process `pid` of this machine still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

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

  #meta(key: string): string | undefined {
    const row = this.#file.sql('SELECT value FROM idgov_sync_meta WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  #setMeta(key: string, value: string): void {
    this.#file
      .sql(
        'INSERT INTO idgov_sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }

  async open(identity: CopyIdentity): Promise<CopyState> {
    return this.#file.write(() => {
      const version = Number(this.#meta('schema_version') ?? SYNC_SCHEMA_VERSION);
      if (version > SYNC_SCHEMA_VERSION) {
        throw new ConfigurationError(
          `${this.path} holds a task copy of schema version ${version}, newer than this SDK's ${SYNC_SCHEMA_VERSION}: upgrade @idgov/sdk.`,
        );
      }
      const baseUrl = this.#meta('base_url');
      const filter = this.#meta('filter');
      if (baseUrl !== undefined && (baseUrl !== identity.baseUrl || filter !== identity.filter)) {
        throw new ConfigurationError(
          `${this.path} holds a copy of ${baseUrl} with the filter ${filter}; this sync is of ${identity.baseUrl} with the filter ${identity.filter}. Use another file for it, or delete this one to start over.`,
        );
      }
      const owner = this.#meta('owner');
      if (owner !== undefined) {
        const held = JSON.parse(owner) as Owner;
        if (held.holder !== this.#holder && (held.host !== hostname() || alive(held.pid))) {
          throw new ConfigurationError(
            `Another sync (process ${held.pid} on ${held.host}, since ${held.since}) is running on ${this.path}: one process syncs a SQLite copy at a time. Wait for it, or stop it; if it no longer runs, delete the row 'owner' of idgov_sync_meta.`,
          );
        }
      }
      this.#setMeta('schema_version', String(SYNC_SCHEMA_VERSION));
      this.#setMeta('base_url', identity.baseUrl);
      this.#setMeta('filter', identity.filter);
      const me: Owner = {
        pid: process.pid,
        host: hostname(),
        since: new Date().toISOString(),
        holder: this.#holder,
      };
      this.#setMeta('owner', JSON.stringify(me));
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
    return this.#file.write(() => {
      const row = this.#file
        .sql(
          "SELECT id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, page_token FROM idgov_sync_windows WHERE run_id = ? AND state = 'free' ORDER BY to_ms - cursor_ms DESC LIMIT 1",
        )
        .get(run.id) as WindowRow | undefined;
      if (!row) return undefined;
      this.#file.sql("UPDATE idgov_sync_windows SET state = 'active' WHERE id = ?").run(row.id);
      return windowOf(row);
    });
  }

  async splitLargest(
    run: SyncRun,
    limits: { readonly minTasks: number; readonly minSpanMs: number },
  ): Promise<boolean> {
    return this.#file.write(() => {
      const windows = (
        this.#file
          .sql(
            `SELECT id, from_ms, to_ms, cursor_ms, pages, tasks, still, stalled,
               EXISTS (SELECT 1 FROM idgov_sync_windows c WHERE c.parent = w.id AND c.pages = 0 AND c.state <> 'done') AS child_unpaged
             FROM idgov_sync_windows w WHERE run_id = ? AND state <> 'done'`,
          )
          .all(run.id) as Array<{
          id: number;
          from_ms: number;
          to_ms: number;
          cursor_ms: number;
          pages: number;
          tasks: number;
          still: number;
          stalled: number;
          child_unpaged: number;
        }>
      ).map((w) => ({
        id: w.id,
        from: w.from_ms,
        to: w.to_ms,
        cursor: w.cursor_ms,
        pages: w.pages,
        tasks: w.tasks,
        still: w.still,
        stalled: w.stalled === 1,
        childUnpaged: w.child_unpaged === 1,
      }));
      const plan = splitPlan(windows, limits.minTasks, limits.minSpanMs);
      if (!plan) return false;
      this.#file.sql('UPDATE idgov_sync_windows SET to_ms = ? WHERE id = ?').run(plan.at, plan.id);
      this.#file
        .sql(
          'INSERT INTO idgov_sync_windows (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, parent) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(run.id, plan.at, plan.to, plan.at, plan.at, plan.to, plan.id);
      return true;
    });
  }

  /** Upserts `rows` (a newer `updatedAt` is never overwritten by an older); counts what changed. */
  #upsert(
    run: SyncRun,
    rows: readonly TaskRow[],
    syncedAt: string,
  ): { new: number; changed: number; deleted: number } {
    const counts = { new: 0, changed: 0, deleted: 0 };
    const existing = this.#file.sql('SELECT updated_at, deleted_at, task FROM idgov_tasks WHERE id = ?');
    const seen = this.#file.sql('UPDATE idgov_tasks SET seen_run = ?, synced_at = ? WHERE id = ?');
    const put = this.#file.sql(
      `INSERT INTO idgov_tasks (id, state, created_at, updated_at, deleted_at, vanished, synced_at, seen_run, task)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, created_at = excluded.created_at,
         updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, vanished = 0,
         synced_at = excluded.synced_at, seen_run = excluded.seen_run, task = excluded.task`,
    );
    for (const row of rows) {
      const before = existing.get(row.id) as
        | { updated_at: string | null; deleted_at: string | null; task: string }
        | undefined;
      if (before?.updated_at && row.updatedAt && before.updated_at > row.updatedAt) {
        seen.run(run.id, syncedAt, row.id);
        continue;
      }
      put.run(
        row.id,
        row.state ?? null,
        row.createdAt ?? null,
        row.updatedAt ?? null,
        row.deletedAt ?? null,
        syncedAt,
        run.id,
        row.json,
      );
      if (!before) counts.new += 1;
      else if (before.task !== row.json) counts.changed += 1;
      if (row.deletedAt && !before?.deleted_at) counts.deleted += 1;
    }
    return counts;
  }

  async commitPage(
    run: SyncRun,
    window: SyncWindow,
    page: Parameters<SyncStore['commitPage']>[2],
  ): Promise<{ readonly to: number; readonly done: boolean; readonly counts: CommitCounts }> {
    return this.#file.write(() => {
      const syncedAt = iso(page.syncedAt);
      const counts = this.#upsert(run, page.tasks, syncedAt);
      this.#putExpanded(page.expanded, syncedAt);
      const { to_ms: to } = this.#file
        .sql('SELECT to_ms FROM idgov_sync_windows WHERE id = ?')
        .get(window.id) as {
        to_ms: number;
      };
      const done = page.exhausted || page.cursor > to;
      this.#file
        .sql(
          `UPDATE idgov_sync_windows SET cursor_ms = ?, query_from_ms = ?, query_to_ms = ?, page_token = ?,
             pages = pages + 1, tasks = tasks + ?, still = still + ?, stalled = ?, state = ? WHERE id = ?`,
        )
        .run(
          page.cursor,
          page.queryFrom,
          page.queryTo,
          done ? null : (page.token ?? null),
          page.tasks.length,
          page.moved ? 0 : page.tasks.length,
          page.moved ? 0 : 1,
          done ? 'done' : 'active',
          window.id,
        );
      return { to, done, counts };
    });
  }

  #putExpanded(rows: readonly ExpandedRow[], syncedAt: string): void {
    const put = this.#file.sql(
      `INSERT INTO idgov_expanded (type, id, synced_at, object) VALUES (?, ?, ?, ?)
       ON CONFLICT (type, id) DO UPDATE SET synced_at = excluded.synced_at, object = excluded.object`,
    );
    for (const row of rows) put.run(row.type, row.id, syncedAt, row.json);
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
      const counts = this.#upsert(run, batch.tasks, syncedAt);
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
