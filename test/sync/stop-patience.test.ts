/**
 * How long a command of the CLI waits for its work once stopped (`stoppedBySignals`): the write in
 * flight is given 5 s, then left, saying so; a command whose work ended in time is not touched, even
 * after a second signal.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { STOP_PATIENCE_MS, stoppedBySignals, UsageError } from '../../src/cli/usage.ts';
import { ConfigurationError } from '../../src/core/errors/errors.ts';

let exits: Array<number | undefined>;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  exits = [];
  vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    exits.push(code);
  }) as typeof process.exit);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/**
 * Work that ends `ms` after it is stopped (or when `finish` is called), with `code`, telling its
 * outcome `outcomeAfterMs` after the stop.
 */
function stoppable(ms: number, code: number, outcomeAfterMs?: number) {
  let finish = () => {};
  const work = (signal: AbortSignal, _signalled: unknown, ended: (code: number) => number) =>
    new Promise<number>((resolve) => {
      finish = () => resolve(code);
      signal.addEventListener('abort', () => {
        if (outcomeAfterMs !== undefined) setTimeout(() => ended(code), outcomeAfterMs);
        setTimeout(finish, ms);
      });
    });
  return { work, finish: () => finish() };
}

it('work that ends within the patience is left to end: no exit, even after a second signal', async () => {
  const done = stoppedBySignals(stoppable(1_000, 130).work, () => 99);
  process.emit('SIGINT', 'SIGINT');
  process.emit('SIGTERM', 'SIGTERM');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(await done).toBe(130);
  await vi.advanceTimersByTimeAsync(STOP_PATIENCE_MS * 2);
  expect(exits).toEqual([]);
});

it('work still writing 5 s after the signal is left with the code abandoned gives', async () => {
  const writing = stoppable(60_000, 130);
  const done = stoppedBySignals(writing.work, () => 99);
  process.emit('SIGTERM', 'SIGTERM');
  await vi.advanceTimersByTimeAsync(STOP_PATIENCE_MS - 1);
  expect(exits).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(exits).toEqual([99]);
  writing.finish();
  await done;
});

it('work whose outcome is known, still letting go of its store 5 s later, ends with that outcome', async () => {
  const closing = stoppable(60_000, 0, 100);
  const done = stoppedBySignals(closing.work, () => 99);
  process.emit('SIGTERM', 'SIGTERM');
  await vi.advanceTimersByTimeAsync(STOP_PATIENCE_MS);
  expect(exits).toEqual([0]);
  expect(process.stderr.write).toHaveBeenCalledWith(
    expect.stringMatching(/^idgov: stopped by SIGTERM while closing its store or exporting telemetry/),
  );
  closing.finish();
  await done;
});

it.each([
  ['a setup error', new ConfigurationError('IDGOV_CLIENT_SECRET is not set: set it to the client secret.')],
  ['a usage error', new UsageError('IDGOV_CLIENT_SECRET is not set: set it to the client secret.')],
])(
  'work failing with %s, still letting go of its store 5 s later, says the error and exits 2',
  async (_what, refused) => {
    let close = () => {};
    const done = stoppedBySignals(
      async (signal, _signalled, _ended, failing) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        try {
          throw failing(refused);
        } finally {
          // Closing a store whose database does not answer.
          await new Promise<void>((resolve) => (close = resolve));
        }
      },
      () => 99,
    );
    process.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(STOP_PATIENCE_MS);
    expect(exits).toEqual([2]);
    const said = vi.mocked(process.stderr.write).mock.calls.map(([text]) => String(text));
    expect(said[0]).toBe('idgov: IDGOV_CLIENT_SECRET is not set: set it to the client secret.\n');
    expect(said[1]).toMatch(/^idgov: stopped by SIGTERM while closing its store/);
    close();
    await expect(done).rejects.toBe(refused);
  },
);
