/**
 * Whether a holder on this machine is still alive, from its process ID: a store on one machine
 * (SQLite) sees a dead holder at once, rather than a lease later. Node-only (`node:os`, `node:fs`),
 * for the stores' own entry points.
 *
 * @module
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** `read()`, or undefined where it fails (no /proc: macOS, Windows). */
function maybe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** When process `pid` started (clock ticks since boot, /proc/<pid>/stat), telling a reused PID from its first owner. */
function startedAt(pid: number): string | undefined {
  return maybe(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state ppid ...": the name may hold spaces and parentheses; field 22 is the start time.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  });
}

// The PID namespace and boot of this process: a PID means the same process only within both (two
// containers of one hostname can share a file, each with its own PIDs).
const NAMESPACE = maybe(() => readlinkSync('/proc/self/ns/pid').replace(/\D/g, ''));
const BOOT = maybe(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().slice(0, 8));

/**
 * This process, as a holder names it: `pid.start@host#namespace.boot` where /proc tells them,
 * else `pid@host`.
 */
export function thisProcess(): string {
  const start = startedAt(process.pid);
  const where = NAMESPACE && BOOT ? `#${NAMESPACE}.${BOOT}` : '';
  return `${process.pid}${start ? `.${start}` : ''}@${hostname()}${where}`;
}

let named: string | undefined;

/**
 * `leaseToken` as a store keeps it: after {@link thisProcess}, so that an operator (`idgov outbox
 * status`) can find the holder of a lease, and a store of one machine can tell it is gone.
 */
export function heldHere(leaseToken: string): string {
  named ??= thisProcess();
  return `${named}/${leaseToken}`;
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
 * Whether `holder` (as {@link thisProcess} names one) is this process, or another one of this
 * machine, PID namespace and boot that runs now: alive, the very process (its start as named), and
 * not stopped (`kill -STOP`, a debugger). Only then can a silence be put down to a clock, not to
 * the holder: a clock stepped forward makes every holder look silent.
 */
export function runningHere(holder: string): boolean {
  const named = /^(\d+)\.(\d+)@([^/#\s]+)(#[^/\s]+)(?:\/|$)/.exec(holder);
  if (!named) return false;
  const [, pidText, start, host, where] = named;
  if (host !== hostname() || !NAMESPACE || !BOOT || where !== `#${NAMESPACE}.${BOOT}`) return false;
  return (
    maybe(() => {
      const stat = readFileSync(`/proc/${Number(pidText)}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // State R, S or D: running, or waiting on I/O; not T or t (stopped), Z (a zombie), X (dead).
      return /^[RSD]$/.test(fields[0] ?? '') && fields[19] === start;
    }) ?? false
  );
}

/**
 * Whether `holder` (as {@link thisProcess} names one, possibly followed by `/` and more) names a
 * process of this machine, this PID namespace and this boot, that is gone: its PID runs no more,
 * or runs another process (started at another time). Any other holder (of another machine or
 * container, or named otherwise) is taken to be alive: only its lease can tell.
 */
export function goneFromThisMachine(holder: string): boolean {
  const named = /^(\d+)(?:\.(\d+))?@([^/#\s]+)(#[^/\s]*)?(?:\/|$)/.exec(holder);
  if (!named) return false;
  const [, pidText, start, host, where = ''] = named;
  const here = NAMESPACE && BOOT ? `#${NAMESPACE}.${BOOT}` : '';
  if (host !== hostname() || where !== here || where === '') return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false;
  if (!alive(pid)) return true;
  // Another process under that PID only if its start can be read (/proc mounted hidepid hides
  // another user's): one that cannot be told apart is taken to be the holder, alive.
  const now = start === undefined ? undefined : startedAt(pid);
  return now !== undefined && now !== start;
}
