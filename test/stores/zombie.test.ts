/**
 * A process killed but not yet reaped by its parent (a zombie: a killed sync whose shell has not
 * waited for it) is dead: nothing it held should wait on it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { alive } from '../../src/stores/local-process.ts';

it.skipIf(!existsSync('/proc/self/stat'))(
  'a killed process its parent has not reaped is not alive',
  async () => {
    // The shell starts a child, then becomes a `sleep` that never waits for it.
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const line = await new Promise<string>((resolve) =>
        createInterface({ input: parent.stdout as NodeJS.ReadableStream }).once('line', resolve),
      );
      const pid = Number(line);
      // Killed only once the shell became `sleep`: a shell still running would reap its child.
      const comm = () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim();
      for (let i = 0; i < 250 && comm() !== 'sleep'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(comm()).toBe('sleep');
      expect(alive(pid)).toBe(true);
      process.kill(pid, 'SIGKILL');
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      };
      for (let i = 0; i < 100 && state() !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
      // Still in the process table (kill(pid, 0) succeeds), but a zombie.
      expect(state()).toBe('Z');
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(alive(pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  },
);
