/**
 * A process whose /proc entry this process may not read (/proc mounted hidepid, another user) is
 * not taken for gone: freeing its leases would have its events sent a second time at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { goneFromThisMachine, thisProcess } from '../../src/stores/local-process.ts';

const hidden = vi.hoisted(() => new Set<string>());
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  return {
    ...fs,
    readFileSync: ((path: Parameters<typeof fs.readFileSync>[0], ...rest: unknown[]) => {
      if (typeof path === 'string' && hidden.has(path))
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
      return (fs.readFileSync as (...args: unknown[]) => unknown)(path, ...rest);
    }) as typeof fs.readFileSync,
  };
});

it.skipIf(!existsSync('/proc/self/stat'))(
  'a live process whose /proc/<pid>/stat cannot be read holds its leases; a dead one does not',
  async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      // Named as that process would name itself: this one's name, its PID and start instead.
      const holder = thisProcess().replace(/^\d+(\.\d+)?@/, `${pid}.${start}@`);
      expect(holder).toMatch(new RegExp(`^${pid}\\.${start}@`));
      expect(goneFromThisMachine(`${holder}/claim`)).toBe(false);
      hidden.add(`/proc/${pid}/stat`);
      expect(goneFromThisMachine(`${holder}/claim`)).toBe(false);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      expect(goneFromThisMachine(`${holder}/claim`)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      hidden.clear();
    }
  },
);
