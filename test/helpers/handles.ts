import { expect } from 'vitest';

/** The process's open timers and TCP sockets (servers' and clients'), counted. */
export interface Handles {
  readonly timers: number;
  readonly sockets: number;
}

/** Counts the open timers and TCP sockets now. */
export function handles(): Handles {
  const info = process.getActiveResourcesInfo();
  return {
    timers: info.filter((r) => r === 'Timeout').length,
    sockets: info.filter((r) => r.startsWith('TCP')).length,
  };
}

/**
 * Expects no more timers or sockets open than at `baseline`: what a test's client started (a retry
 * backoff, an empty-page wait, a timeout, a connection) is gone. Closed servers end their
 * connections a moment later, so it waits briefly for their close events (no timed assertion).
 */
export async function expectNoHandlesLeft(baseline: Handles): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const now = handles();
    if (now.timers <= baseline.timers && now.sockets <= baseline.sockets) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const now = handles();
  expect(now.timers).toBeLessThanOrEqual(baseline.timers);
  expect(now.sockets).toBeLessThanOrEqual(baseline.sockets);
}
