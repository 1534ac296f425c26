/**
 * The SQLite tables of a task copy: the documented ones (`idgov_tasks`, `idgov_expanded`) and the
 * sync's own, and how a copy of an older schema version is brought to this one.
 *
 * @module
 */

/** The schema version this SDK writes; a copy of an older one is migrated when opened. */
export const SYNC_SCHEMA_VERSION = 6;

/**
 * The statements that take a copy from version `n` to `n + 1`, by `n`. Version 2: windows and
 * open tasks are held under leases (the same design as the PostgreSQL copy's workers). Version 3:
 * a window may page only the tasks acted on since a time, and a run says whether it did. Version 4:
 * the change feed, `idgov_changes` (created with the schema; the version keeps an older SDK, which
 * would write changes without their rows, from syncing the copy). Version 5: a burst may be paged
 * from both ends, by ticket ID (`sort_by`, the other end's window in `pair`, the ID reached in `edge`).
 * Version 6: a run answered out of creation order says so (`unordered`), for the process that resumes it.
 */
export const SQLITE_SYNC_MIGRATIONS: Readonly<Record<number, string>> = {
  1: `
ALTER TABLE idgov_tasks ADD COLUMN lease_token TEXT;
ALTER TABLE idgov_tasks ADD COLUMN leased_at INTEGER;
ALTER TABLE idgov_tasks ADD COLUMN lease_until INTEGER;
ALTER TABLE idgov_sync_windows ADD COLUMN lease_token TEXT;
ALTER TABLE idgov_sync_windows ADD COLUMN leased_at INTEGER;
ALTER TABLE idgov_sync_windows ADD COLUMN lease_until INTEGER;
UPDATE idgov_sync_windows SET state = 'free' WHERE state = 'active';
ALTER TABLE idgov_sync_runs DROP COLUMN refreshed_through;
`,
  2: `
ALTER TABLE idgov_sync_windows ADD COLUMN acted_after_ms INTEGER;
ALTER TABLE idgov_sync_runs ADD COLUMN acted_after_ms INTEGER;
`,
  3: '',
  4: `
ALTER TABLE idgov_sync_windows ADD COLUMN sort_by TEXT NOT NULL DEFAULT 'created';
ALTER TABLE idgov_sync_windows ADD COLUMN pair INTEGER;
ALTER TABLE idgov_sync_windows ADD COLUMN edge TEXT;
`,
  5: `
ALTER TABLE idgov_sync_runs ADD COLUMN unordered INTEGER NOT NULL DEFAULT 0;
`,
};

/**
 * The indexes a copy gains once its columns are current (run after the migrations, so a copy of any
 * version gets them): the few tasks under a refresh's lease, so that renewing, ending and listing
 * leases reads only these, not every task. And one it loses: `(created_at)`, which
 * `(created_at, id)` serves as well, and which cost every write an index more.
 */
export const SQLITE_SYNC_INDEXES = `
CREATE INDEX IF NOT EXISTS idgov_tasks_leased ON idgov_tasks (lease_token) WHERE lease_token IS NOT NULL;
DROP INDEX IF EXISTS idgov_tasks_created_at;
`;

export const SQLITE_SYNC_SCHEMA = `
CREATE TABLE IF NOT EXISTS idgov_sync_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idgov_tasks (
  id         TEXT PRIMARY KEY,
  state      TEXT,
  created_at TEXT,
  updated_at TEXT,
  deleted_at TEXT,
  vanished   INTEGER NOT NULL DEFAULT 0,
  synced_at  TEXT NOT NULL,
  seen_run   INTEGER NOT NULL,
  task       TEXT NOT NULL,
  lease_token TEXT,
  leased_at   INTEGER,
  lease_until INTEGER
);
CREATE INDEX IF NOT EXISTS idgov_tasks_state ON idgov_tasks (state);
CREATE INDEX IF NOT EXISTS idgov_tasks_created_id ON idgov_tasks (created_at, id);
CREATE INDEX IF NOT EXISTS idgov_tasks_updated_at ON idgov_tasks (updated_at);
CREATE TABLE IF NOT EXISTS idgov_expanded (
  type      TEXT NOT NULL,
  id        TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  object    TEXT NOT NULL,
  PRIMARY KEY (type, id)
);
CREATE TABLE IF NOT EXISTS idgov_changes (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  kind           TEXT NOT NULL,
  task_id        TEXT NOT NULL,
  at             TEXT NOT NULL,
  previous_state TEXT,
  state          TEXT,
  task           TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idgov_sync_runs (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  kind              TEXT NOT NULL,
  started_at        INTEGER NOT NULL,
  finished_at       INTEGER,
  acted_after_ms    INTEGER,
  unordered         INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS idgov_sync_windows (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        INTEGER NOT NULL,
  from_ms       INTEGER NOT NULL,
  to_ms         INTEGER NOT NULL,
  cursor_ms     INTEGER NOT NULL,
  query_from_ms INTEGER NOT NULL,
  query_to_ms   INTEGER NOT NULL,
  page_token    TEXT,
  state         TEXT NOT NULL DEFAULT 'free',
  pages         INTEGER NOT NULL DEFAULT 0,
  tasks         INTEGER NOT NULL DEFAULT 0,
  still         INTEGER NOT NULL DEFAULT 0,
  stalled       INTEGER NOT NULL DEFAULT 0,
  parent        INTEGER,
  acted_after_ms INTEGER,
  lease_token   TEXT,
  leased_at     INTEGER,
  lease_until   INTEGER,
  sort_by       TEXT NOT NULL DEFAULT 'created',
  pair          INTEGER,
  edge          TEXT
);
`;
