/** The SQLite tables of a task copy: the documented ones (`idgov_tasks`, `idgov_expanded`) and the sync's own. */
export const SYNC_SCHEMA_VERSION = 1;

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
  task       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idgov_tasks_state ON idgov_tasks (state);
CREATE INDEX IF NOT EXISTS idgov_tasks_created_at ON idgov_tasks (created_at);
CREATE INDEX IF NOT EXISTS idgov_tasks_updated_at ON idgov_tasks (updated_at);
CREATE TABLE IF NOT EXISTS idgov_expanded (
  type      TEXT NOT NULL,
  id        TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  object    TEXT NOT NULL,
  PRIMARY KEY (type, id)
);
CREATE TABLE IF NOT EXISTS idgov_sync_runs (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  kind              TEXT NOT NULL,
  started_at        INTEGER NOT NULL,
  finished_at       INTEGER,
  refreshed_through TEXT
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
  parent        INTEGER
);
`;
