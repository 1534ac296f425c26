/**
 * The PostgreSQL tables of a task copy, named from one prefix: the documented ones (`<prefix>_tasks`,
 * `<prefix>_expanded`, the change feed `<prefix>_changes`) and the sync's own (`<prefix>_sync_meta`,
 * `_sync_runs`, `_sync_windows`).
 *
 * @module
 */
import { checkedTable, indexName, quotedName } from '../../stores/postgres.ts';

/** The schema version the SDK writes in `<prefix>_sync_meta`; a newer copy is refused. */
export const POSTGRES_SYNC_SCHEMA_VERSION = 4;

/** The prefix of the tables when none is given. */
export const DEFAULT_SYNC_PREFIX = 'idgov';

// The longest suffix of a name made from the prefix, which must fit PostgreSQL's 63 bytes whole.
const LONGEST_SUFFIX = '_tasks_updated_at';

/** The quoted names of a copy's tables, and the bare prefix its index names start with. */
export interface SyncTables {
  /** The prefix as given (checked), for messages. */
  readonly prefix: string;
  readonly tasks: string;
  readonly expanded: string;
  readonly changes: string;
  readonly meta: string;
  readonly runs: string;
  readonly windows: string;
  /** The prefix without its schema, quoted parts excluded: index names are made from it. */
  readonly bare: string;
}

/** A condition: a run of the copy has completed (until then it holds part of the tenant's tasks). */
export const completedRunSql = (t: SyncTables) =>
  `EXISTS (SELECT 1 FROM ${t.runs} WHERE finished_at IS NOT NULL)`;

/** The tables of a copy under `prefix` (optionally `schema.prefix`), checked and quoted. */
export function syncTables(prefix: string = DEFAULT_SYNC_PREFIX): SyncTables {
  const checked = checkedTable(prefix, LONGEST_SUFFIX);
  const name = (suffix: string) => quotedName(`${checked}${suffix}`);
  return {
    prefix: checked,
    tasks: name('_tasks'),
    expanded: name('_expanded'),
    changes: name('_changes'),
    meta: name('_sync_meta'),
    runs: name('_sync_runs'),
    windows: name('_sync_windows'),
    bare: checked.split('.').pop() as string,
  };
}

/**
 * Columns added after a table was first created (version 2: the `acted_after_ms` of windows and
 * runs; version 3: the tasks' `change_kind` and `change_previous_state`; version 4: the runs'
 * `unordered`): a copy whose tables lack one is migrated.
 */
export function addedColumns(
  t: SyncTables,
): ReadonlyArray<{ readonly table: string; readonly column: string }> {
  return [
    { table: t.windows, column: 'acted_after_ms' },
    { table: t.runs, column: 'acted_after_ms' },
    { table: t.tasks, column: 'change_kind' },
    { table: t.tasks, column: 'change_previous_state' },
    { table: t.runs, column: 'unordered' },
  ];
}

/** Every table and index {@link postgresSyncSchema} creates, as `to_regclass` reads names. */
export function syncRelations(t: SyncTables): string[] {
  const indexes = [
    '_tasks_state',
    '_tasks_created_id',
    '_tasks_updated_at',
    '_tasks_leased',
    '_sync_runs_open',
    '_sync_windows_run',
  ];
  return [
    t.meta,
    t.tasks,
    t.expanded,
    t.changes,
    t.runs,
    t.windows,
    ...indexes.map((suffix) => indexName(t.prefix, suffix)),
  ];
}

/**
 * The SQL that creates a task copy's tables in PostgreSQL: run it yourself (a migration tool, a
 * DBA), or let `PostgresSyncStore.migrate()` run it. Idempotent. `<prefix>_tasks` and
 * `<prefix>_expanded` are yours to query; the others are the sync's checkpoints. Times of the
 * documented columns are `timestamptz`; the sync's own are Unix milliseconds.
 *
 * @example
 * console.log(postgresSyncSchema('reporting.idgov')); // reporting.idgov_tasks, ...
 *
 * @group Task sync
 */
export function postgresSyncSchema(prefix: string = DEFAULT_SYNC_PREFIX): string {
  const t = syncTables(prefix);
  // A table's quoted name inside an SQL string literal.
  const q = (name: string) => name.replaceAll("'", "''");
  return `-- Task copy of @idgov/sdk (schema version ${POSTGRES_SYNC_SCHEMA_VERSION}).
CREATE TABLE IF NOT EXISTS ${t.meta} (
  key   text PRIMARY KEY,  -- schema_version, base_url, filter, changes_seq, change_feed
  value text NOT NULL
);
-- One row a task, as the service last sent it.
CREATE TABLE IF NOT EXISTS ${t.tasks} (
  id          text PRIMARY KEY,
  state       text,                    -- TASK_STATE_OPEN, TASK_STATE_CLOSED, or a newer state
  created_at  timestamptz,
  updated_at  timestamptz,
  deleted_at  timestamptz,             -- set when the task was deleted
  vanished    boolean NOT NULL DEFAULT false, -- deleted because the service no longer returns it
  synced_at   timestamptz NOT NULL,    -- when the sync last fetched it
  seen_run    bigint NOT NULL,         -- the sync's: the last run that fetched it
  task        jsonb NOT NULL,          -- the task's JSON as received
  lease_token text,                    -- the sync's: the worker refreshing it, until lease_until
  leased_at   bigint,
  lease_until bigint,
  change_kind text,                    -- the sync's: the change its last write made, for the feed
  change_previous_state text
);
CREATE INDEX IF NOT EXISTS "${t.bare}_tasks_state" ON ${t.tasks} (state);
-- Reading the copy in creation order (idgov export), a batch at a time by (created_at, id).
CREATE INDEX IF NOT EXISTS "${t.bare}_tasks_created_id" ON ${t.tasks} (created_at, id);
CREATE INDEX IF NOT EXISTS "${t.bare}_tasks_updated_at" ON ${t.tasks} (updated_at);
-- The few tasks under a refresh's lease: renewing, ending and listing leases reads only these.
CREATE INDEX IF NOT EXISTS "${t.bare}_tasks_leased" ON ${t.tasks} (lease_token) WHERE lease_token IS NOT NULL;
-- Objects the sync was asked to expand, by their @type and ID.
CREATE TABLE IF NOT EXISTS ${t.expanded} (
  type      text NOT NULL,
  id        text NOT NULL,
  synced_at timestamptz NOT NULL,
  object    jsonb NOT NULL,
  PRIMARY KEY (type, id)
);
-- The change feed: one row a real change to the copy, written in the transaction that made it.
-- seq increases in commit order and is never reused (see idgov changes, store.changes()).
CREATE TABLE IF NOT EXISTS ${t.changes} (
  seq            bigint PRIMARY KEY,
  kind           text NOT NULL,        -- created, changed, deleted, vanished
  task_id        text NOT NULL,
  at             timestamptz NOT NULL, -- when the copy saw it
  previous_state text,
  state          text,
  task           jsonb NOT NULL        -- the task after the change
);
-- lz4 where the server has it (PostgreSQL 14+ built with it) for the JSON columns: a task of a couple
-- of KiB is compressed at each write, and pglz's compression was the server's largest cost in a
-- commit. Only where not set yet, since ALTER TABLE waits for every worker writing the table; left as
-- it is where the server has no lz4. Values already written keep their compression.
DO $$
DECLARE col record;
BEGIN
  FOR col IN SELECT a.attrelid::regclass AS tbl, a.attname FROM pg_attribute a
    WHERE (a.attrelid, a.attname) IN ((to_regclass('${q(t.tasks)}'), 'task'),
      (to_regclass('${q(t.expanded)}'), 'object'), (to_regclass('${q(t.changes)}'), 'task'))
      AND a.attcompression IS DISTINCT FROM 'l'
  LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET COMPRESSION lz4', col.tbl, col.attname);
  END LOOP;
EXCEPTION WHEN OTHERS THEN NULL;
END $$;
-- The feed's counter: the last seq handed out.
INSERT INTO ${t.meta} (key, value) SELECT 'changes_seq', coalesce(max(seq), 0)::text FROM ${t.changes} ON CONFLICT (key) DO NOTHING;
CREATE TABLE IF NOT EXISTS ${t.runs} (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text   NOT NULL CHECK (kind IN ('full', 'incremental')),
  started_at  bigint NOT NULL,  -- the end of the run's creation-time range
  finished_at bigint,
  acted_after_ms bigint,        -- set: it paged the tasks acted on since then
  unordered   boolean NOT NULL DEFAULT false  -- the service answered it out of creation order
);
-- One unfinished run at a time: workers starting together join one.
CREATE UNIQUE INDEX IF NOT EXISTS "${t.bare}_sync_runs_open" ON ${t.runs} ((finished_at IS NULL)) WHERE finished_at IS NULL;
-- Stretches of creation time, each paged by one worker's cursor under a lease.
CREATE TABLE IF NOT EXISTS ${t.windows} (
  id            bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id        bigint  NOT NULL,
  from_ms       bigint  NOT NULL,
  to_ms         bigint  NOT NULL,
  cursor_ms     bigint  NOT NULL,  -- the creation time of the last task committed
  query_from_ms bigint  NOT NULL,
  query_to_ms   bigint  NOT NULL,
  page_token    text,
  state         text    NOT NULL DEFAULT 'free' CHECK (state IN ('free', 'done')),
  pages         integer NOT NULL DEFAULT 0,
  tasks         integer NOT NULL DEFAULT 0,
  still         integer NOT NULL DEFAULT 0,
  stalled       boolean NOT NULL DEFAULT false,
  parent        bigint,
  acted_after_ms bigint,           -- set: pages only tasks acted on since then (includeActedAfter)
  lease_token   text,
  leased_at     bigint,
  lease_until   bigint
);
CREATE INDEX IF NOT EXISTS "${t.bare}_sync_windows_run" ON ${t.windows} (run_id, state);
-- Version 2: what a copy made by version 1 gains (version 3: the change feed, above); then workers
-- of an earlier version refuse it.
ALTER TABLE ${t.windows} ADD COLUMN IF NOT EXISTS acted_after_ms bigint;
ALTER TABLE ${t.runs} ADD COLUMN IF NOT EXISTS acted_after_ms bigint;
ALTER TABLE ${t.tasks} ADD COLUMN IF NOT EXISTS change_kind text;
ALTER TABLE ${t.tasks} ADD COLUMN IF NOT EXISTS change_previous_state text;
ALTER TABLE ${t.runs} ADD COLUMN IF NOT EXISTS unordered boolean NOT NULL DEFAULT false;
UPDATE ${t.meta} SET value = '${POSTGRES_SYNC_SCHEMA_VERSION}'
  WHERE key = 'schema_version' AND CASE WHEN value ~ '^[0-9]+$' THEN value::int END < ${POSTGRES_SYNC_SCHEMA_VERSION};
`;
}
