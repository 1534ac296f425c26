/**
 * One end of a burst paged from both ends: the ticket ID its pages reached (its edge), when it has
 * met the other end, and a service that does not page by ticket ID as the edges need, which leaves
 * the end to page alone to its last page.
 */
import { describe, expect, it } from 'vitest';
import { BurstEnd, edgeOf } from '../../src/sync/run/burst-end.ts';

const page = (...ids: Array<string | undefined>) =>
  ids.map((numericId) => ({ task: { id: `t${numericId}`, numericId } }));

describe('BurstEnd', () => {
  it('keeps ticket IDs as 20 digits, so that text order is number order; no edge for what is no int64', () => {
    expect(edgeOf('9')).toBe('00000000000000000009');
    expect(`${edgeOf('9')}` < `${edgeOf('10')}`).toBe(true);
    expect(edgeOf('9223372036854775807')).toBe('09223372036854775807');
    for (const bad of ['-1', '1.5', '', ' 7', '12345678901234567890', 7, undefined])
      expect(edgeOf(bad)).toBeUndefined();
  });

  it('an ascending end reaches its highest ID, a descending one its lowest; they meet once they cross', () => {
    const up = new BurstEnd('ticket', undefined);
    const down = new BurstEnd('reverseTicket', undefined);
    expect(up.read(page('100', '101', '102'))).toBe(true);
    expect(down.read(page('200', '150', '110'))).toBe(true);
    expect([up.edge, down.edge]).toEqual([edgeOf('102'), edgeOf('110')]);
    expect(up.met(down.edge) || down.met(up.edge)).toBe(false);
    // A page of views without a task (a null in the list) moves nothing.
    expect(up.read([null, {}] as never)).toBe(true);
    expect(up.read(page('103', '111'))).toBe(true);
    expect(up.met(down.edge)).toBe(true);
    expect(down.met(up.edge)).toBe(true);
    // An end that paged to its last page passed every ID: '~' above all, '' below all.
    expect(new BurstEnd('ticket', edgeOf('5')).met('')).toBe(true);
    expect(new BurstEnd('reverseTicket', edgeOf('5')).met('~')).toBe(true);
  });

  it('is near the other end when that is no more pages off than its last page reached', () => {
    const down = new BurstEnd('reverseTicket', undefined);
    down.read(page('1000', '990'));
    // One page tells no stride yet.
    expect(down.near(edgeOf('980'), 1)).toBe(false);
    down.read(page('980', '950'));
    // The last page reached 40 IDs past the one before.
    expect(down.near(edgeOf('910'), 1)).toBe(true);
    expect(down.near(edgeOf('909'), 1)).toBe(false);
    expect(down.near(edgeOf('870'), 2)).toBe(true);
    expect(down.near('', 1)).toBe(false);
    expect(down.near(undefined, 3)).toBe(false);
  });

  it('pages alone from the first ID out of its order, or one that is no integer, and says so once', () => {
    const up = new BurstEnd('ticket', undefined);
    expect(up.read(page('5', '6'))).toBe(true);
    expect(up.read(page('7', '4'))).toBe(false);
    expect(up.alone).toBe(true);
    expect(up.read(page('1'))).toBe(true);
    const noId = new BurstEnd('reverseTicket', undefined);
    expect(noId.read(page('9', undefined))).toBe(false);
    expect(noId.alone).toBe(true);
  });

  it('starts again from the first page without going back on its edge', () => {
    const up = new BurstEnd('ticket', edgeOf('50'));
    up.restart();
    expect(up.read(page('10', '20'))).toBe(true);
    expect(up.edge).toBe(edgeOf('50'));
    expect(up.alone).toBe(false);
  });
});
