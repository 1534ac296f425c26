import type { ChildProcess } from 'node:child_process';
import { startChild } from './child.ts';

/** The event ID of event `n` of the crash tests: a valid UUID v4 that test and workers both compute. */
export const eventIdOf = (n: number) => `0c0ffee0-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A running outbox worker (test/fixtures/outbox-worker.ts) and how it ended. */
export interface Worker {
  readonly child: ChildProcess;
  /** How many events it announced as enqueued (one more than the highest n printed). */
  announced(): number;
  /** Resolves with the exit code (null when killed) and whether it printed "drained". */
  readonly exited: Promise<{ code: number | null; signal: string | null; drained: boolean; stderr: string }>;
}

/** Starts a worker process with `env` (see the fixture for the variables). */
export function startWorker(env: Record<string, string>): Worker {
  const started = startChild('test/fixtures/outbox-worker.ts', [], env);
  const exited = started.exited.then(({ code, signal, stdout, stderr }) => ({
    code,
    signal,
    drained: stdout.includes('drained'),
    stderr,
  }));
  const announced = () =>
    Math.max(0, ...(started.stdout().match(/^E\d+$/gm) ?? []).map((line) => Number(line.slice(1)) + 1));
  return { child: started.child, exited, announced };
}

/**
 * Resolves once `condition()` holds, checking every 5 ms; rejects after `timeoutMs`, or as soon as
 * one of `workers` exits (they only exit once nothing is pending), with what it printed to stderr.
 */
export async function until(
  condition: () => boolean,
  workers: readonly Worker[],
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  let exited: { code: number | null; stderr: string } | undefined;
  for (const w of workers) void w.exited.then((e) => (exited ??= e));
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (exited) throw new Error(`a worker exited (${exited.code}) before ${what}: ${exited.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
