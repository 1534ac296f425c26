/**
 * The reference for the sync's CPU: a bare copy loop, run as its own process like `idgov sync`.
 * It fetches every page of the tenant's tasks (pages of 100, by page token), parses each with
 * `JSON.parse`, and upserts each task's JSON into SQLite, one transaction a page: what any copy of
 * the tasks must do, and nothing else (no validation, no checkpoint, no resume).
 *
 * With `copy-tables`, it writes the task copy's own tables instead, as `idgov sync` lays them out
 * (its columns and indexes, a feed row a task, 8 KiB pages, `synchronous = FULL`), every task the
 * search lists deleted ones included: what the copy's storage costs, and nothing of the SDK or the
 * sync's work.
 *
 * Usage: node bench/bare-copy.ts FILE [copy-tables] (the tenant from IDGOV_BASE_URL,
 * IDGOV_CLIENT_ID, IDGOV_CLIENT_SECRET).
 */
import { DatabaseSync } from 'node:sqlite';
import { SQLITE_SYNC_INDEXES, SQLITE_SYNC_SCHEMA } from '../src/sync/sqlite/schema.ts';

const [file, mode] = process.argv.slice(2);
const copyTables = mode === 'copy-tables';
const { IDGOV_BASE_URL: baseUrl, IDGOV_CLIENT_ID: clientId, IDGOV_CLIENT_SECRET: clientSecret } = process.env;
if (!file || !baseUrl || !clientId || !clientSecret)
  throw new Error('usage: bare-copy.ts FILE, with IDGOV_* set');

const db = new DatabaseSync(file);
if (copyTables) {
  db.exec(`PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
    ${SQLITE_SYNC_SCHEMA} ${SQLITE_SYNC_INDEXES}`);
} else {
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
    CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, task TEXT NOT NULL)`);
}
const upsert = db.prepare(
  copyTables
    ? `INSERT INTO idgov_tasks (id, state, created_at, updated_at, deleted_at, synced_at, seen_run, task)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task`
    : 'INSERT INTO tasks (id, task) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task',
);
const feed = copyTables
  ? db.prepare(
      'INSERT INTO idgov_changes (kind, task_id, at, previous_state, state, task) VALUES (?, ?, ?, NULL, ?, ?)',
    )
  : undefined;
const form = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: clientId,
  client_secret: clientSecret,
});
const token = (await (await fetch(`${baseUrl}/auth/v1/token`, { method: 'POST', body: form })).json()) as {
  access_token: string;
};
type Task = { id: string; state?: string; createdAt?: string; updatedAt?: string; deletedAt?: string };
let pageToken = '';
let copied = 0;
do {
  const query = copyTables ? { pageSize: 100, includeDeleted: true } : { pageSize: 100 };
  const response = await fetch(`${baseUrl}/api/v1/search/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify(pageToken ? { ...query, pageToken } : query),
  });
  const page = JSON.parse(await response.text()) as { list: Array<{ task: Task }>; nextPageToken: string };
  const at = new Date().toISOString();
  db.exec('BEGIN');
  for (const { task } of page.list) {
    const json = JSON.stringify(task);
    if (!feed) upsert.run(task.id, json);
    else {
      const state = task.state ?? null;
      upsert.run(
        task.id,
        state,
        task.createdAt ?? null,
        task.updatedAt ?? null,
        task.deletedAt ?? null,
        at,
        json,
      );
      feed.run('created', task.id, at, state, json);
    }
  }
  db.exec('COMMIT');
  copied += page.list.length;
  pageToken = page.nextPageToken;
} while (pageToken);
db.close();
process.stderr.write(`copied ${copied}\n`);
