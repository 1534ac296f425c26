/**
 * Where `idgov changes --kind` tells its reader to go on from: past the lines the OS took from the
 * process, and the changes of other kinds read before the next line it has not taken, never further.
 */
import { describe, expect, it } from 'vitest';
import { DeliveredPosition } from '../../src/cli/delivered-position.ts';

describe('the position idgov changes --kind gives', () => {
  it('moves with each line taken, in order, and to a batch read through only once the lines before it are taken', () => {
    const position = new DeliveredPosition(10);
    const first = position.written(12);
    const second = position.written(15);
    // The batch was read through 40 (changes of other kinds after 15), its lines not yet taken.
    position.readThrough(40);
    expect(position.seq).toBe(10);
    first();
    expect(position.seq).toBe(12);
    second();
    expect(position.seq).toBe(40);
    // Nothing in hand: a batch read through moves it at once.
    position.readThrough(55);
    expect(position.seq).toBe(55);
  });

  it('stops where a write failed: no later line counts', async () => {
    const position = new DeliveredPosition(0);
    const first = position.written(3);
    const failed = position.written(4);
    position.written(5);
    position.readThrough(9);
    first();
    failed(new Error('EPIPE'));
    await position.settled();
    position.readThrough(12);
    expect(position.seq).toBe(3);
  });

  it('settles once every line written is taken', async () => {
    const position = new DeliveredPosition(0);
    await position.settled();
    const line = position.written(1);
    let settled = false;
    const waiting = position.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    line();
    await waiting;
    expect(position.seq).toBe(1);
  });
});
