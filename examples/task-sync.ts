/**
 * Keep a copy of the tenant's tasks in SQLite: a full run, then, after the tenant changed, an
 * incremental one; then read the copy with plain SQL.
 *
 *   node --import ./scripts/from-source.ts examples/task-sync.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { TaskSync } from '@idgov/sdk/sync';
import { SqliteSyncStore } from '@idgov/sdk/sync/sqlite';
import { type ExampleEnvironment, runIfMain } from './support/environment.ts';

export async function syncTasks({ client, fake }: ExampleEnvironment): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'idgov-example-sync-'));
  const path = join(dir, 'tasks.db');
  try {
    const sync = () => new TaskSync({ client, store: new SqliteSyncStore({ path }), concurrency: 4 });
    const first = sync();
    const full = await first.run();
    await first.close();
    console.log(
      `Full run: ${full.tasksNew} tasks copied in ${full.pages} pages over ${full.windows} windows.`,
    );
    if (fake) {
      fake.closeTasks(5);
      fake.createTasks(12);
      console.log('The tenant closed 5 tasks and created 12.');
    }
    const second = sync();
    const incremental = await second.run();
    await second.close();
    console.log(
      `Incremental run: ${incremental.tasksNew} new, ${incremental.tasksChanged} changed, in ${incremental.pages} pages.`,
    );
    const db = new DatabaseSync(path, { readOnly: true });
    const counts = db
      .prepare(
        'SELECT state, count(*) AS n FROM idgov_tasks WHERE deleted_at IS NULL GROUP BY state ORDER BY state',
      )
      .all();
    db.close();
    console.log('The copy, by state:', Object.fromEntries(counts.map((row) => [row.state, row.n])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, syncTasks);
