import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../src/cli/idgov.ts', import.meta.url));
const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));

/** What a run of `idgov` did. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment of a CLI run from source: `env`, PATH, and the tests' compile cache (see
 * vitest.config.ts), and nothing else of this process (no credentials or `OTEL_*` leak in).
 */
export function cliEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH, ...(cache ? { NODE_COMPILE_CACHE: cache } : {}), ...env };
}

/**
 * Runs `idgov args` from source as a user would, with `env` and PATH only (no credentials or
 * `OTEL_*` of this process leak in); `onStderr` sees its stderr as it comes (to signal it mid-run),
 * and `onStdout` its stdout (to signal it, or to close the pipe as a reader that goes would).
 */
export function idgov(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  onStderr?: (text: string, kill: (signal?: NodeJS.Signals) => void) => void,
  onStdout?: (text: string, child: ChildProcessByStdio<null, Readable, Readable>) => void,
): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', fromSource, cli, ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    onStderr?.(stderr, (signal = 'SIGINT') => child.kill(signal));
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
