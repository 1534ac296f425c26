/**
 * Whether a holder on this machine is still alive, from its process ID: a store on one machine
 * (SQLite) sees a dead holder at once, rather than a lease later. Node-only (`node:os`, `node:fs`),
 * for the stores' own entry points.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** This process, as a holder names it: `pid@host`. */
export function thisProcess(): string {
  return `${process.pid}@${hostname()}`;
}

/**
 * Whether process `pid` of this machine still runs. A zombie (killed, and not yet reaped by its
 * parent shell) is dead: it will never write again.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (name) state ...", the name in parentheses may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS, Windows): kill(pid, 0) had the last word
  }
}

/**
 * Whether `holder` (`pid@host`, as {@link thisProcess} names one, possibly followed by more) names
 * a process of this machine that is gone. A holder of another machine, or one not so named, is
 * taken to be alive: only its lease can tell.
 */
export function goneFromThisMachine(holder: string): boolean {
  const named = /^(\d+)@([^/\s]+)/.exec(holder);
  if (!named || named[2] !== hostname()) return false;
  const pid = Number(named[1]);
  return pid !== process.pid && !alive(pid);
}
