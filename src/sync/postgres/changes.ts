/**
 * The change feed of a PostgreSQL task copy (`<prefix>_changes`), written by the statement that
 * changes the copy. Many workers commit at once, so a `seq` taken from a sequence could commit
 * after a greater one a reader has passed. Here `seq` comes from a counter row (`changes_seq` in
 * `<prefix>_sync_meta`) that a statement locks once it holds its tasks, and keeps until it commits:
 * numbers are handed out in commit order, and a reader that saw `seq` n never finds a smaller one
 * later. A statement with no change leaves the counter alone, so it waits for no other.
 *
 * @module
 */
import { ConfigurationError } from '../../core/errors/errors.ts';
import { type ChangeKind, pruneProblem } from '../change-kinds.ts';
import type { ChangeBatch } from '../changes.ts';
import { missingTable } from './no-copy.ts';
import type { PgQuery } from './rows.ts';
import { completedRunSql, type SyncTables } from './schema.ts';

/**
 * Whether changes are recorded by a statement: once a first run completed; before, as the worker
 * that began the copy's first run was given (`change_feed`, written by {@link beginRun}), whatever
 * this one was: workers whose first commits overlap each decide before seeing the other's. A copy
 * of an earlier release, begun without it: as its first commit did (a `seq` handed out: `all`;
 * tasks but none: `after-first-copy`), and before any, as `$param` says (true: `all`).
 */
export const feedOnSql = (t: SyncTables, param: string) =>
  `(${completedRunSql(t)} OR (SELECT value::bigint FROM ${t.meta} WHERE key = 'changes_seq') > 0
    OR coalesce((SELECT value = 'all' FROM ${t.meta} WHERE key = 'change_feed'),
                ${param}::boolean AND NOT EXISTS (SELECT 1 FROM ${t.tasks})))`;

/**
 * The common table expression `decided`: the first run's setting (`$param`, true: `all`) kept as
 * the copy's, by the statement that begins a run (`begun`, its new run's row) while the copy holds
 * no task, no change and no completed run.
 */
export const decideFeedSql = (t: SyncTables, begun: string, param: string) => `decided AS (
    INSERT INTO ${t.meta} (key, value)
    SELECT 'change_feed', CASE WHEN ${param}::boolean THEN 'all' ELSE 'after-first-copy' END FROM ${begun}
    WHERE NOT ${completedRunSql(t)} AND NOT EXISTS (SELECT 1 FROM ${t.tasks})
      AND coalesce((SELECT value::bigint FROM ${t.meta} WHERE key = 'changes_seq'), 0) = 0
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value)`;

/**
 * The common table expression `fetched`: the changes the upsert of `upsertTasksSql` made (its `up`,
 * which judged each against the row it replaced), as the columns {@link recordChangesSql} reads,
 * when `feedOn` holds. The task comes from `input`, as parsed: the row written holds it compressed.
 */
export const fetchedChangesSql = (feedOn: string) => `fetched AS (
    SELECT u.change_kind AS kind, u.id AS task_id, u.change_previous_state AS previous_state, i.state, i.task
    FROM up u JOIN input i ON i.id = u.id WHERE u.change_kind IS NOT NULL AND ${feedOn})`;

/** The common table expression `vanished`: the tasks `source` (`RETURNING id, state, task`) marked vanished, when `feedOn` holds. */
export const vanishedChangesSql = (source: string, feedOn: string) => `vanished AS (
    SELECT 'vanished' AS kind, id AS task_id, state AS previous_state, state, task FROM ${source} WHERE ${feedOn})`;

/**
 * The common table expressions that record the changes of `sources` (CTEs of `kind, task_id,
 * previous_state, state, task`) at `at` (timestamptz): `seq` takes their numbers from the counter,
 * which its reading of the sources orders after every task the statement writes; `feed` inserts
 * them, by task ID within the statement. {@link AFTER_SEQ} orders other writes after the counter.
 */
export function recordChangesSql(t: SyncTables, sources: readonly string[], at: string): string {
  const all = sources.map((source) => `SELECT kind, task_id, previous_state, state, task FROM ${source}`);
  return `changed AS (${all.join(' UNION ALL ')}),
  seq AS (
    UPDATE ${t.meta} SET value = (value::bigint + (SELECT count(*) FROM changed))::text
    WHERE key = 'changes_seq' AND EXISTS (SELECT 1 FROM changed)
    RETURNING value::bigint AS last),
  feed AS (
    INSERT INTO ${t.changes} (seq, kind, task_id, at, previous_state, state, task)
    SELECT (SELECT last FROM seq) - (SELECT count(*) FROM changed) + row_number() OVER (ORDER BY task_id),
      kind, task_id, ${at}, previous_state, state, task
    FROM changed)`;
}

/**
 * A condition, always true, that makes a write wait for the counter: rows another statement may
 * lock after its counter (expanded objects) are locked here after the counter too, so that no two
 * statements wait for each other.
 */
export const AFTER_SEQ = '(SELECT count(*) FROM seq) >= 0';

/**
 * The next `limit` rows after `after` by `seq`, keeping the changes of `kinds` (any when undefined):
 * the others are looked at by the primary key only, and their tasks not sent. The counter is read
 * in the same statement, so with the rows of one snapshot: read after them, it could count the
 * changes of a commit the rows did not see, and a reader would take them for pruned.
 */
export async function readChangeBatch(
  query: PgQuery,
  t: SyncTables,
  after: number,
  limit: number,
  kinds: readonly ChangeKind[] | undefined,
): Promise<ChangeBatch> {
  const { rows: read } = await query<{
    last: string;
    seq: string | null;
    kind: ChangeKind;
    task_id: string;
    at: Date;
    previous_state: string | null;
    state: string | null;
    task: string | null;
  }>(
    'reading the change feed',
    `SELECT m.value AS last, c.* FROM ${t.meta} m LEFT JOIN LATERAL (
       SELECT seq, kind, task_id, at, previous_state, state,
         CASE WHEN $3::text[] IS NULL OR kind = ANY($3) THEN task::text END AS task
       FROM ${t.changes} WHERE seq > $1 ORDER BY seq LIMIT $2) c ON true
     WHERE m.key = 'changes_seq' ORDER BY c.seq`,
    [after, limit, kinds ? [...kinds] : null],
  ).catch(async (error: unknown) => {
    throw await noFeed(query, t, error);
  });
  const rows = read.filter((row) => row.seq !== null);
  const records = rows.flatMap((row) =>
    row.task === null
      ? []
      : [
          {
            seq: Number(row.seq),
            kind: row.kind,
            taskId: row.task_id,
            at: row.at.toISOString(),
            previousState: row.previous_state ?? undefined,
            state: row.state ?? undefined,
            json: row.task,
          },
        ],
  );
  const last = rows.at(-1);
  return {
    records,
    through: last ? Number(last.seq) : undefined,
    first: rows[0] ? Number(rows[0].seq) : undefined,
    full: rows.length === limit,
    last: last ? undefined : Number(read[0]?.last ?? 0),
  };
}

/** Deletes the changes before `before`: how many. */
export async function pruneChangeRows(query: PgQuery, t: SyncTables, before: number): Promise<number> {
  const { rows } = await query<{ last: string; feed: boolean }>(
    'reading the change feed',
    `SELECT value AS last, to_regclass($1) IS NOT NULL AS feed FROM ${t.meta} WHERE key = 'changes_seq'`,
    [t.changes],
  ).catch(async (error: unknown) => {
    throw await noFeed(query, t, error);
  });
  // No feed: a copy made before it, which the delete below says how to migrate.
  const problem = rows[0]?.feed && pruneProblem(before, Number(rows[0].last));
  if (problem) throw new ConfigurationError(problem);
  const { rowCount } = await query('pruning the change feed', `DELETE FROM ${t.changes} WHERE seq < $1`, [
    before,
  ]).catch(async (error: unknown) => {
    throw await noFeed(query, t, error);
  });
  return rowCount;
}

/**
 * A feed table missing, said naming it (the store's errors name its tasks table): a copy made by an
 * earlier release, to migrate; or no copy at all under this prefix (a mistyped one), to check.
 */
function noFeed(query: PgQuery, t: SyncTables, error: unknown): Promise<unknown> {
  return missingTable(
    query,
    t,
    error,
    (cause) =>
      new ConfigurationError(
        `${t.changes} does not exist: the copy was made by an earlier release. Run store.migrate() once (or the SQL of postgresSyncSchema(), or idgov sync --postgres, which migrates) to add the change feed.`,
        { cause },
      ),
  );
}
