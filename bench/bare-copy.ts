/**
 * The reference for the sync's CPU: a bare copy loop, run as its own process like `idgov sync`.
 * It fetches every page of the tenant's tasks (pages of 100, by page token), parses each with
 * `JSON.parse`, and upserts each task's JSON into SQLite, one transaction a page: what any copy of
 * the tasks must do, and nothing else (no validation, no checkpoint, no resume).
 *
 * Usage: node bench/bare-copy.ts FILE (the tenant from IDGOV_BASE_URL, IDGOV_CLIENT_ID, IDGOV_CLIENT_SECRET).
 */
import { DatabaseSync } from 'node:sqlite';

const [file] = process.argv.slice(2);
const { IDGOV_BASE_URL: baseUrl, IDGOV_CLIENT_ID: clientId, IDGOV_CLIENT_SECRET: clientSecret } = process.env;
if (!file || !baseUrl || !clientId || !clientSecret)
  throw new Error('usage: bare-copy.ts FILE, with IDGOV_* set');

const db = new DatabaseSync(file);
db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
  CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, task TEXT NOT NULL)`);
const upsert = db.prepare(
  'INSERT INTO tasks (id, task) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task',
);
const form = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: clientId,
  client_secret: clientSecret,
});
const token = (await (await fetch(`${baseUrl}/auth/v1/token`, { method: 'POST', body: form })).json()) as {
  access_token: string;
};
let pageToken = '';
let copied = 0;
do {
  const response = await fetch(`${baseUrl}/api/v1/search/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify(pageToken ? { pageSize: 100, pageToken } : { pageSize: 100 }),
  });
  const page = JSON.parse(await response.text()) as {
    list: Array<{ task: { id: string } }>;
    nextPageToken: string;
  };
  db.exec('BEGIN');
  for (const view of page.list) upsert.run(view.task.id, JSON.stringify(view.task));
  db.exec('COMMIT');
  copied += page.list.length;
  pageToken = page.nextPageToken;
} while (pageToken);
db.close();
process.stderr.write(`copied ${copied}\n`);
