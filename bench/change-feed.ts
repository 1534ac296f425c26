/**
 * What the change feed costs a sync: a first full copy (the most the feed ever writes, a row a task)
 * with the feed on (`--change-feed all`) beside off (`after-first-copy`, which writes no row then),
 * `idgov sync` processes in interleaved pairs. Served at once (the CPU-bound case: time and CPU of
 * every thread), and at 200 ms a page (where the service is the limit). On PostgreSQL the feed's
 * work is the server's: its time, and the server's CPU (read from /proc: a local server), each run
 * on a server left as the last found it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_POSTGRES, postgresForTests } from '../test/helpers/postgres.ts';
import { start } from './paging.ts';
import { postmasterOf, serverCpuSeconds } from './server-cpu.ts';
import { compared, median, type Result, SMALL } from './support.ts';
import { postgresSync, sqliteSync } from './sync-processes.ts';

const TASKS = SMALL ? 2_000 : 20_000;
const ROUNDS = SMALL ? 1 : 3;
const ON = ['--change-feed', 'all'];
const OFF = ['--change-feed', 'after-first-copy'];

/** Medians of `measure(on)` and `measure(off)` over interleaved pairs, each a record of figures. */
async function pairs<K extends string>(
  measure: (extra: readonly string[]) => Promise<Record<K, number>>,
): Promise<Record<K, { subject: number; reference: number }>> {
  const on: Record<K, number>[] = [];
  const off: Record<K, number>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    off.push(await measure(OFF));
    on.push(await measure(ON));
  }
  const keys = Object.keys(on[0] ?? {}) as K[];
  return Object.fromEntries(
    keys.map((key) => [
      key,
      { subject: median(on.map((r) => r[key])), reference: median(off.map((r) => r[key])) },
    ]),
  ) as Record<K, { subject: number; reference: number }>;
}

const atMost = (share: number) => (ratio: number) => ratio <= 1 + share;

/**
 * Leaves the server as the next run should find it: the copy `schema.table` dropped and its pages
 * written out (a checkpoint). Otherwise a run pays for the one before it: the checkpoint its writes
 * bring on, and autovacuum of its tables, which made the server's CPU move by a third between runs.
 */
async function settle(url: string, schema: string, table: string): Promise<void> {
  const { default: Pg } = await import('pg');
  const client = new Pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
       WHERE schemaname = $1 AND starts_with(tablename, $2)`,
      [schema, `${table}_`],
    );
    if (rows.length > 0) await client.query(`DROP TABLE ${rows.map((row) => row.name).join(', ')} CASCADE`);
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

export async function changeFeedBenchmarks(): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), 'idgov-bench-feed-'));
  const results: Result[] = [];
  const size = `${TASKS.toLocaleString('en')} tasks`;
  const history = ['--history', String(TASKS)];
  try {
    const quick = await start('../dist/bin.js', [...history, '--latency', '0']);
    try {
      const sqlite = await pairs(async (extra) => {
        const run = await sqliteSync(quick, dir, 4, extra);
        return { seconds: run.seconds, cpu: run.cpuSeconds };
      });
      results.push(
        compared(
          `feed: first SQLite copy with the feed on beside off, time, ${size} served at once`,
          sqlite.seconds,
          's',
          '<= 1.10x',
          atMost(0.1),
        ),
        compared('feed: the same, CPU of every thread', sqlite.cpu, 'CPU s', '<= 1.10x', atMost(0.1)),
      );
      const pg = await postgresForTests();
      if (!pg) console.log(`feed: PostgreSQL row left out, ${NO_POSTGRES}`);
      else {
        try {
          let n = 0;
          const postmaster = await postmasterOf(pg.url);
          const postgres = await pairs(async (extra) => {
            const table = `feed_${++n}`;
            const before = serverCpuSeconds(postmaster);
            const seconds = await postgresSync(quick, pg.url, `${pg.schema}.${table}`, 1, extra);
            const server = serverCpuSeconds(postmaster) - before;
            await settle(pg.url, pg.schema, table);
            return { seconds, server };
          });
          results.push(
            compared(
              `feed: first PostgreSQL copy (1 worker, 4 cursors) with the feed on beside off, time, ${size} served at once`,
              postgres.seconds,
              's',
              '<= 1.10x',
              atMost(0.1),
            ),
            compared(
              'feed: the same, CPU of the PostgreSQL server',
              postgres.server,
              'CPU s',
              '<= 1.10x',
              atMost(0.1),
            ),
          );
        } finally {
          await pg.stop();
        }
      }
    } finally {
      quick.child.kill();
    }
    const slow = await start('../dist/bin.js', [...history, '--latency', SMALL ? '20' : '200']);
    try {
      const bound = await pairs(async (extra) => ({
        seconds: (await sqliteSync(slow, dir, 16, extra)).seconds,
      }));
      results.push(
        compared(
          `feed: the same at ${SMALL ? 20 : 200} ms a page, 16 cursors, time`,
          bound.seconds,
          's',
          '<= 1.10x',
          atMost(0.1),
        ),
      );
    } finally {
      slow.child.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
