/**
 * The CPU time a local PostgreSQL server spent: its postmaster's and every backend's, those that
 * have ended included (the postmaster reaps them, and the kernel adds their time to its children's),
 * read from /proc. For telling what a statement costs the server, which a client's CPU cannot show.
 */
import { readdirSync, readFileSync } from 'node:fs';

// Clock ticks a second, as /proc counts CPU time (getconf CLK_TCK; 100 on Linux).
const TICKS = 100;

/** utime, stime, cutime, cstime and the parent of `pid`, from /proc/<pid>/stat. */
function stat(pid: number): { ppid: number; own: number; reaped: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (in parentheses) may hold spaces: the fields counted after its end.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i - 3]);
    return { ppid: n(4), own: n(14) + n(15), reaped: n(16) + n(17) };
  } catch {
    return undefined; // ended meanwhile
  }
}

/** The server's CPU seconds so far: `postmaster`'s own and reaped children's, and its live children's. */
export function serverCpuSeconds(postmaster: number): number {
  const root = stat(postmaster);
  if (!root) throw new Error(`no process ${postmaster}: is the PostgreSQL server local?`);
  let ticks = root.own + root.reaped;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const child = stat(pid);
    if (child?.ppid === postmaster) ticks += child.own;
  }
  return ticks / TICKS;
}

/** The postmaster of the server at `url`: the parent of a backend. */
export async function postmasterOf(url: string): Promise<number> {
  const { default: Pg } = await import('pg');
  const client = new Pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    const backend = stat(Number(rows[0]?.pid));
    if (!backend) throw new Error('the PostgreSQL server is not on this machine');
    return backend.ppid;
  } finally {
    await client.end();
  }
}
