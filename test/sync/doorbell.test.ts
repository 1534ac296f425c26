/**
 * Idle cursors wait in turn: a page's commit sends one of them to look for work (a claim, a split,
 * the end of the run: statements to the store), not all of them, and only the one waiting longest
 * looks again on its own, for other workers' changes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Doorbell } from '../../src/sync/run/doorbell.ts';

describe('Doorbell', () => {
  const woken: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    woken.splice(0);
  });
  afterEach(() => vi.useRealTimers());
  /** Waits on `bell` as the cursor `name`, which is told in `woken` when its wait ends. */
  function idle(bell: Doorbell, name: string, signal = new AbortController().signal, ms = 250) {
    void bell.wait(ms, signal).then(() => woken.push(name));
  }

  it('a ring wakes the cursor waiting longest, and only it', async () => {
    const bell = new Doorbell();
    for (const name of ['a', 'b', 'c']) idle(bell, name);
    bell.ring();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a']);
    bell.ring();
    bell.ring();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a', 'b', 'c']);
  });

  it('at the end of the run, every cursor waiting is woken at once, and none waits again', async () => {
    const bell = new Doorbell();
    for (const name of ['a', 'b', 'c']) idle(bell, name);
    bell.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a', 'b', 'c']);
    expect(bell.closed).toBe(true);
    idle(bell, 'late');
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a', 'b', 'c', 'late']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a ring with no cursor waiting is not kept for the next', async () => {
    const bell = new Doorbell();
    bell.ring();
    idle(bell, 'a');
    await vi.advanceTimersByTimeAsync(249);
    expect(woken).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toEqual(['a']);
  });

  it('only the cursor waiting longest times out; the next one a timeout after it', async () => {
    const bell = new Doorbell();
    for (const name of ['a', 'b', 'c']) idle(bell, name);
    await vi.advanceTimersByTimeAsync(250);
    expect(woken).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(249);
    expect(woken).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(100);
    bell.ring();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['a', 'b', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a stop wakes a cursor wherever it waits, and the others keep their turns', async () => {
    const bell = new Doorbell();
    const stop = new AbortController();
    idle(bell, 'a');
    idle(bell, 'stopped', stop.signal);
    idle(bell, 'c');
    stop.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['stopped']);
    bell.ring();
    bell.ring();
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['stopped', 'a', 'c']);
    // A wait begun once stopped ends at once.
    idle(bell, 'late', stop.signal);
    await vi.advanceTimersByTimeAsync(0);
    expect(woken).toEqual(['stopped', 'a', 'c', 'late']);
  });
});
