import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));

/** A child process running a TypeScript file of the repository, as the crash tests start them. */
export interface Child {
  readonly child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  /** Resolves once it exited: its code (null when killed), the signal, and what it printed. */
  readonly exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/**
 * Starts `script` (a path relative to the repository's root) with `args` under the same Node, with
 * `@idgov/sdk` imports resolved to the source, and `env` over this process's environment.
 */
export function startChild(script: string, args: readonly string[], env: Record<string, string>): Child {
  const path = fileURLToPath(new URL(`../../${script}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', fromSource, path, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, stdout: () => stdout, exited };
}
