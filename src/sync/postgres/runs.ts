/**
 * The runs of a PostgreSQL task copy, and whose copy it is: opening it for a tenant and filter,
 * beginning (or joining) the one run all workers share, and ending it.
 *
 * @module
 */

import { ConfigurationError } from '../../core/errors/errors.ts';
import { sameFilter } from '../filter-key.ts';
import type { CopyIdentity, CopyState, RunEnd, SyncRun, SyncWindowPlan } from '../store.ts';
import { decideFeedSql, feedOnSql, recordChangesSql, vanishedChangesSql } from './changes.ts';
import { heldLeasesSql } from './leases.ts';
import { refreshDueSql } from './refresh.ts';
import type { PgQuery } from './rows.ts';
import { addedColumns, completedRunSql, POSTGRES_SYNC_SCHEMA_VERSION, type SyncTables } from './schema.ts';

/**
 * Opens the copy for `identity`: tables of an older version are refused until migrated, a copy of
 * another tenant or filter is refused.
 */
export async function openCopy(query: PgQuery, t: SyncTables, identity: CopyIdentity): Promise<CopyState> {
  const columns = addedColumns(t);
  // Checked before the copy is said to be of this version, so that tables of version 1 stay so
  // (missing tables are said by the statements that need them).
  const { rows: missing } = await query<{ name: string }>(
    'opening the copy',
    `SELECT c.t || '.' || c.col AS name FROM unnest($1::text[], $2::text[]) AS c(t, col)
     WHERE to_regclass(c.t) IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(c.t) AND attname = c.col AND NOT attisdropped)`,
    [columns.map((c) => c.table), columns.map((c) => c.column)],
  );
  const { rows: feed } = await query<{ here: boolean }>(
    'opening the copy',
    'SELECT to_regclass($1) IS NOT NULL OR to_regclass($2) IS NULL AS here',
    [t.changes, t.tasks],
  );
  if (feed[0]?.here === false) missing.push({ name: `the table ${t.changes}` });
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${t.tasks} is a task copy of an earlier release, without ${missing.map((m) => m.name).join(' and ')}: run store.migrate() once, or the SQL of postgresSyncSchema() (it adds what is missing), before syncing it with this SDK.`,
    );
  }
  await query(
    'opening the copy',
    // The feed's counter, should it be missing, goes on from the feed's last seq: one is never reused.
    `INSERT INTO ${t.meta} (key, value)
     VALUES ('schema_version', $1), ('base_url', $2), ('filter', $3),
            ('changes_seq', (SELECT coalesce(max(seq), 0)::text FROM ${t.changes}))
     ON CONFLICT (key) DO NOTHING`,
    [String(POSTGRES_SYNC_SCHEMA_VERSION), identity.baseUrl, identity.filter],
  );
  const { rows } = await query<{
    meta: Record<string, string>;
    last: string | null;
    acted: string | null;
    earliest: string | null;
    begun: boolean;
  }>(
    'opening the copy',
    `SELECT (SELECT json_object_agg(key, value) FROM ${t.meta}) AS meta,
            (SELECT started_at FROM ${t.runs} WHERE finished_at IS NOT NULL
               ORDER BY id DESC LIMIT 1) AS last,
            (SELECT started_at FROM ${t.runs} WHERE finished_at IS NOT NULL
               AND (kind = 'full' OR acted_after_ms IS NOT NULL) ORDER BY id DESC LIMIT 1) AS acted,
            (SELECT floor(extract(epoch FROM min(created_at)) * 1000)::bigint FROM ${t.tasks}) AS earliest,
            EXISTS (SELECT 1 FROM ${t.runs}) OR EXISTS (SELECT 1 FROM ${t.tasks}) AS begun`,
    [],
  );
  const row = rows[0];
  const meta = row?.meta ?? {};
  const version = Number(meta.schema_version);
  if (version > POSTGRES_SYNC_SCHEMA_VERSION) {
    throw new ConfigurationError(
      `${t.tasks} is a task copy of schema version ${version}, newer than this SDK's ${POSTGRES_SYNC_SCHEMA_VERSION}: upgrade @idgov/sdk.`,
    );
  }
  if (version < POSTGRES_SYNC_SCHEMA_VERSION) {
    // Its tables are current (its columns were added by hand?): say so, so that workers of an
    // earlier release refuse the copy.
    await query(
      'opening the copy',
      `UPDATE ${t.meta} SET value = $1
       WHERE key = 'schema_version' AND CASE WHEN value ~ '^[0-9]+$' THEN value::int END < $1::int`,
      [String(POSTGRES_SYNC_SCHEMA_VERSION)],
    );
  }
  if (meta.base_url !== identity.baseUrl || !sameFilter(meta.filter, identity.filter)) {
    // Not taken over even when empty: workers of two tenants opening one new copy at once could
    // both pass, and share a run. An empty copy is said to be one, with its simple remedy.
    const remedy = row?.begun
      ? "Use another table prefix (the store's table option) for it, or drop these tables to start over (the change feed then starts again at seq 1: its readers must start again from 0)."
      : `It holds nothing yet (its first run failed before it began: a wrong base URL?): delete the rows of ${t.meta} (or drop the tables) to use it for this one.`;
    throw new ConfigurationError(
      `${t.tasks} holds a copy of ${meta.base_url} with the filter ${meta.filter}; this sync is of ${identity.baseUrl} with the filter ${identity.filter}. ${remedy}`,
    );
  }
  const ms = (value: string | null | undefined) => (value == null ? undefined : Number(value));
  return {
    lastRunStartedAt: ms(row?.last),
    actedSeenSince: ms(row?.acted),
    earliestCreatedAt: ms(row?.earliest),
  };
}

/** Whether a run of the copy has completed. */
export async function hasCompletedRun(query: PgQuery, t: SyncTables): Promise<boolean> {
  const { rows } = await query<{ done: boolean }>(
    'reading the runs',
    `SELECT ${completedRunSql(t)} AS done`,
    [],
  );
  return rows[0]?.done === true;
}

/** The unfinished run, if there is one. */
export async function unfinishedRun(query: PgQuery, t: SyncTables): Promise<SyncRun | undefined> {
  const { rows } = await query<{ id: string; kind: SyncRun['kind']; started_at: string; unordered: boolean }>(
    'reading the run',
    `SELECT id, kind, started_at, unordered FROM ${t.runs} WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`,
    [],
  );
  const row = rows[0];
  return (
    row && {
      id: Number(row.id),
      kind: row.kind,
      startedAt: Number(row.started_at),
      resumed: true,
      ...(row.unordered ? { unordered: true } : {}),
    }
  );
}

/**
 * Begins a run with `windows`, or joins the unfinished one: one at a time (a unique index), so of
 * workers beginning together one inserts and the others join. The worker that begins a copy's
 * first run decides whether its feed records that first copy (`feedAll`): every worker follows it.
 */
export async function beginRun(
  query: PgQuery,
  t: SyncTables,
  kind: SyncRun['kind'],
  startedAt: number,
  windows: readonly SyncWindowPlan[],
  feedAll: boolean,
): Promise<SyncRun> {
  for (;;) {
    const { rows } = await query<{ id: string }>(
      'beginning a run',
      `WITH r AS (INSERT INTO ${t.runs} (kind, started_at, acted_after_ms) VALUES ($1, $2, $4::bigint)
                  ON CONFLICT DO NOTHING RETURNING id),
       w AS (INSERT INTO ${t.windows} (run_id, from_ms, to_ms, cursor_ms, query_from_ms, query_to_ms, acted_after_ms)
             SELECT r.id, x.f, x.t, x.f, x.f, x.t, x.a FROM r, jsonb_to_recordset($3::jsonb) AS x(f bigint, t bigint, a bigint)),
       ${decideFeedSql(t, 'r', '$5')}
       SELECT id FROM r`,
      [
        kind,
        startedAt,
        JSON.stringify(windows.map((w) => ({ f: w.from, t: w.to, a: w.actedAfter ?? null }))),
        windows.find((w) => w.actedAfter !== undefined)?.actedAfter ?? null,
        feedAll,
      ],
    );
    if (rows[0]) return { id: Number(rows[0].id), kind, startedAt, resumed: false };
    const joined = await unfinishedRun(query, t);
    if (joined) return joined;
    // The other run ended meanwhile: begin again.
  }
}

/**
 * Ends `run` if no work of it is left, once (of the workers that try, one ends it): after a full run,
 * the tasks it did not see are marked deleted and vanished, with their changes (`feedAll`: the feed
 * records the first copy too). While it is not over, the live leases on its work.
 */
export async function finishRun(
  query: PgQuery,
  t: SyncTables,
  run: SyncRun,
  finishedAt: number,
  feedAll: boolean,
): Promise<RunEnd> {
  const { rows } = await query<{
    ended: boolean;
    vanished: string;
    before: boolean;
    gone: boolean;
    held: Array<{ holder: string; until: number; left: number }> | null;
  }>(
    'ending a run',
    `WITH r AS (
       UPDATE ${t.runs} SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL
         -- The tasks are read only once the windows are done (a CASE keeps that order).
         AND CASE WHEN EXISTS (SELECT 1 FROM ${t.windows} WHERE run_id = $1 AND state <> 'done') THEN false
           ELSE NOT EXISTS (SELECT 1 FROM ${t.tasks} WHERE ${refreshDueSql(run, '$1')}) END
       RETURNING kind, started_at),
     -- Only what the run's range covered: a task created after its end is not its to judge.
     -- o is the row as it was: a deleted task the service then forgot was not newly deleted.
     v AS (
       UPDATE ${t.tasks} AS n SET deleted_at = coalesce(n.deleted_at, to_timestamp($2::bigint / 1000.0)), vanished = true
       FROM ${t.tasks} AS o
       WHERE o.id = n.id AND EXISTS (SELECT 1 FROM r WHERE kind = 'full') AND n.seen_run <> $1 AND NOT n.vanished
         AND (n.created_at IS NULL OR n.created_at <= (SELECT to_timestamp(started_at / 1000.0) FROM r))
       RETURNING n.id, n.state, n.task, o.deleted_at IS NULL AS newly),
     ${vanishedChangesSql('v', feedOnSql(t, '$3'))},
     ${recordChangesSql(t, ['vanished'], 'to_timestamp($2::bigint / 1000.0)')},
     d AS (DELETE FROM ${t.windows} WHERE run_id = $1 AND EXISTS (SELECT 1 FROM r))
     SELECT EXISTS (SELECT 1 FROM r) AS ended, (SELECT count(*) FROM v WHERE newly) AS vanished,
            coalesce((SELECT finished_at IS NOT NULL FROM ${t.runs} WHERE id = $1), true) AS before,
            NOT EXISTS (SELECT 1 FROM ${t.runs} WHERE id = $1) AS gone,
            ${heldLeasesSql(t, '$1')} AS held`,
    [run.id, finishedAt, feedAll],
  );
  const row = rows[0];
  const finished = Boolean(row?.ended || row?.before);
  return {
    finished,
    vanished: Number(row?.vanished ?? 0),
    ...(row?.gone ? { superseded: true } : {}),
    ...(finished
      ? {}
      : {
          held: (row?.held ?? []).map((h) => ({
            holder: h.holder,
            until: Number(h.until),
            leftMs: Number(h.left),
          })),
        }),
  };
}
