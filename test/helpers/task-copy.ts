import { DatabaseSync } from 'node:sqlite';
import type { WireTask } from '../../src/testing/index.ts';

/** What a copy row says of a task: enough to tell whether the copy equals the tenant. */
export interface CopiedTask {
  readonly id: string;
  readonly state: string | null;
  readonly deleted: boolean;
  /** Unix ms (NaN when none): a task changed in any way (a comment) is updated. */
  readonly updated: number;
}

const ms = (at: string | Date | null | undefined) => (at == null ? Number.NaN : new Date(at).getTime());

/** The copy's tasks, by ID, read with plain SQL as a user would. */
export function copiedTasks(path: string): Map<string, CopiedTask> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare('SELECT id, state, deleted_at, updated_at FROM idgov_tasks').all() as Array<{
      id: string;
      state: string | null;
      deleted_at: string | null;
      updated_at: string | null;
    }>;
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, state: row.state, deleted: row.deleted_at !== null, updated: ms(row.updated_at) },
      ]),
    );
  } finally {
    db.close();
  }
}

/** The tenant's tasks as the copy should hold them. */
export function expectedTasks(tasks: readonly WireTask[]): Map<string, CopiedTask> {
  return new Map(
    tasks.map((task) => [
      task.id as string,
      {
        id: task.id as string,
        state: task.state ?? null,
        deleted: Boolean(task.deletedAt),
        updated: ms(task.updatedAt),
      },
    ]),
  );
}

/** The IDs whose copy differs from the tenant (missing, extra, or another state, deletion or update), at most 10. */
export function differences(copy: Map<string, CopiedTask>, tenant: Map<string, CopiedTask>): string[] {
  const out: string[] = [];
  for (const [id, want] of tenant) {
    const got = copy.get(id);
    if (!got) out.push(`missing ${id}`);
    else if (
      got.state !== want.state ||
      got.deleted !== want.deleted ||
      !Object.is(got.updated, want.updated)
    ) {
      const said = (t: CopiedTask) => `${t.state}/${t.deleted ? 'deleted' : 'kept'}/${t.updated}`;
      out.push(`${id}: ${said(got)} instead of ${said(want)}`);
    }
    if (out.length >= 10) return out;
  }
  for (const id of copy.keys()) if (!tenant.has(id) && out.length < 10) out.push(`extra ${id}`);
  return out;
}

/** The tasks of a PostgreSQL copy under `prefix` (e.g. `schema.idgov`), by ID, read with plain SQL. */
export async function copiedTasksPg(url: string, prefix: string): Promise<Map<string, CopiedTask>> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      id: string;
      state: string | null;
      deleted: boolean;
      updated_at: Date | null;
    }>(`SELECT id, state, deleted_at IS NOT NULL AS deleted, updated_at FROM ${prefix}_tasks`);
    return new Map(
      rows.map((row) => [
        row.id,
        { id: row.id, state: row.state, deleted: row.deleted, updated: ms(row.updated_at) },
      ]),
    );
  } finally {
    await client.end();
  }
}
