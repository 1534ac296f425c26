/**
 * One end of a burst paged from both ends: the ticket ID its pages reached (its edge), when it has
 * met the other end, and a service that does not page by ticket ID as the edges need, which leaves
 * the end to page alone to its last page.
 */
import { describe, expect, it } from 'vitest';
import { BurstEnd, edgeOf } from '../../src/sync/run/burst-end.ts';
import { COVERED_EDGE } from '../../src/sync/store-rows.ts';

const page = (...ids: Array<string | undefined>) =>
  ids.map((numericId) => ({
    task: { id: `t${numericId}`, numericId, createdAt: '2026-11-01T00:00:00.000Z' },
  }));
// Every task of these pages is inside the query but one created elsewhere (see below).
const inQuery = (task: { readonly createdAt?: string | null }) =>
  task.createdAt === '2026-11-01T00:00:00.000Z';

describe('BurstEnd', () => {
  it('keeps ticket IDs as 20 digits; no edge for what is no int64', () => {
    expect(edgeOf('9')).toBe('00000000000000000009');
    expect(edgeOf('0009')).toBe(edgeOf('9'));
    expect(edgeOf('9223372036854775807')).toBe('09223372036854775807');
    for (const bad of ['-1', '1.5', '', ' 7', '12345678901234567890', 7, undefined])
      expect(edgeOf(bad)).toBeUndefined();
  });

  it("an ID is an edge once the next came in order after it; the ends meet once one read the other's edge", () => {
    const up = new BurstEnd('ticket', undefined);
    const down = new BurstEnd('reverseTicket', undefined);
    expect(up.read(page('1', '2', '3', '4', '5'), inQuery)).toBe(true);
    expect(down.read(page('10', '9', '8', '7', '6'), inQuery)).toBe(true);
    // The last ID of a page is an edge only once the next page shows it was in order.
    expect([up.edge, down.edge]).toEqual([edgeOf('4'), edgeOf('7')]);
    expect(up.met(down.edge) || down.met(up.edge)).toBe(false);
    // A page of views without a task (a null in the list) moves nothing.
    expect(up.read([null, {}] as never, inQuery)).toBe(true);
    expect(up.read(page('6', '7', '8'), inQuery)).toBe(true);
    // The ascending end read the descending end's edge: between them, their pages hold every task.
    expect(up.met(down.edge)).toBe(true);
    expect(down.met(up.edge)).toBe(true);
    // An end that found the burst covered (it paged to its last page, or met this one).
    expect(new BurstEnd('ticket', edgeOf('5')).met(COVERED_EDGE)).toBe(true);
    expect(new BurstEnd('ticket', edgeOf('5')).met(undefined)).toBe(false);
  });

  it('edges that crossed by number are no meeting: a service may order ticket IDs as text', () => {
    // By text, "10000" sorts before "9000": each end reads its own half, in number order on every page.
    const up = new BurstEnd('ticket', undefined);
    const down = new BurstEnd('reverseTicket', undefined);
    expect(up.read(page('10000', '10001', '10002'), inQuery)).toBe(true);
    expect(down.read(page('9999', '9998', '9997'), inQuery)).toBe(true);
    expect(up.met(down.edge)).toBe(false);
    expect(down.met(up.edge)).toBe(false);
  });

  it('a task the service put on the page from outside the query moves no edge, and is no disorder', () => {
    const down = new BurstEnd('reverseTicket', undefined);
    const stray = { task: { id: 'old', numericId: '7', createdAt: '2026-08-01T00:00:00.000Z' } };
    expect(down.read([...page('300', '299'), stray, ...page('298', '297')], inQuery)).toBe(true);
    expect(down.edge).toBe(edgeOf('298'));
    expect(down.alone).toBe(false);
    expect(down.met(edgeOf('7'))).toBe(false);
  });

  it('an ID out of order at the end of a page shows on the next, and never was an edge', () => {
    const up = new BurstEnd('ticket', undefined);
    expect(up.read(page('100', '101', '900'), inQuery)).toBe(true);
    expect(up.edge).toBe(edgeOf('101'));
    expect(up.read(page('102', '103'), inQuery)).toBe(false);
    expect(up.alone).toBe(true);
    expect(up.edge).toBe(edgeOf('101'));
  });

  it('is near the other end when that is no more pages off than its last page moved its edge', () => {
    const down = new BurstEnd('reverseTicket', undefined);
    down.read(page('1000', '990'), inQuery);
    // One page tells no stride yet.
    expect(down.near(edgeOf('980'), 1)).toBe(false);
    down.read(page('960', '950'), inQuery);
    // The edge moved from 1000 to 960.
    expect(down.edge).toBe(edgeOf('960'));
    expect(down.near(edgeOf('920'), 1)).toBe(true);
    expect(down.near(edgeOf('919'), 1)).toBe(false);
    expect(down.near(edgeOf('880'), 2)).toBe(true);
    expect(down.near(COVERED_EDGE, 1)).toBe(false);
    expect(down.near(undefined, 3)).toBe(false);
  });

  it('pages alone from the first ID out of its order, repeated, or no integer, and says so once', () => {
    const up = new BurstEnd('ticket', undefined);
    expect(up.read(page('5', '6'), inQuery)).toBe(true);
    expect(up.read(page('7', '4'), inQuery)).toBe(false);
    expect(up.alone).toBe(true);
    expect(up.read(page('1'), inQuery)).toBe(true);
    // Tasks sharing an ID: each end could read them in an order the other does not reverse.
    const twice = new BurstEnd('ticket', undefined);
    expect(twice.read(page('5', '6'), inQuery)).toBe(true);
    expect(twice.read(page('6', '7'), inQuery)).toBe(false);
    const noId = new BurstEnd('reverseTicket', undefined);
    expect(noId.read(page('9', undefined), inQuery)).toBe(false);
    expect(noId.alone).toBe(true);
  });

  it('started again from the first page, keeps its edge, and meets only on what it reads from then on', () => {
    const up = new BurstEnd('ticket', undefined);
    up.read(page('10', '20', '30'), inQuery);
    up.restart();
    expect(up.met(edgeOf('20'))).toBe(false);
    expect(up.read(page('10', '20'), inQuery)).toBe(true);
    expect(up.edge).toBe(edgeOf('20'));
    expect(up.met(edgeOf('20'))).toBe(true);
    expect(up.alone).toBe(false);
  });
});
