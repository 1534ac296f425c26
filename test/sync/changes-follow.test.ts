/**
 * `idgov changes --follow` is a process left running to follow the feed: an outage of its store
 * longer than the half minute a read waits out must not end it, nor skip or repeat a change.
 */
import { describe, expect, it, vi } from 'vitest';
import { followedThroughOutages } from '../../src/cli/changes-follow.ts';
import { StoreError } from '../../src/stores/store-error.ts';
import { type ChangeBatch, type ChangeRecord, readChangeRecords } from '../../src/sync/changes.ts';

const change = (seq: number): ChangeRecord => ({
  seq,
  kind: 'created',
  taskId: `task-${seq}`,
  at: '2026-11-28T00:00:00.000Z',
  previousState: undefined,
  state: 'TASK_STATE_OPEN',
  json: '{}',
});

/**
 * A feed of `last` changes whose reads give up (as a follower's read does after half a minute) at
 * the seqs of `failAt`, once each, before handing them out; what each read was asked from.
 */
function outagedFeed(
  last: number,
  failAt: readonly number[],
  error = () => new StoreError('the database restarts', { transient: true }),
) {
  const failing = new Set(failAt);
  const askedAfter: number[] = [];
  const open = async function* (after: number, onPosition: (seq: number) => void) {
    askedAfter.push(after);
    for (let seq = after + 1; seq <= last; seq++) {
      if (failing.delete(seq)) throw error();
      yield change(seq);
    }
    onPosition(last);
  };
  return { open, askedAfter };
}

async function read(feed: ReturnType<typeof outagedFeed>, since = 0, signal = new AbortController().signal) {
  const said: string[] = [];
  const seen: number[] = [];
  for await (const c of followedThroughOutages(feed.open, since, signal, (line) => said.push(line)))
    seen.push(c.seq);
  return { seen, said };
}

describe('idgov changes --follow through outages of its store', () => {
  it('reads on after the last seq handed out, each change once, saying when the store failed and when it answers again', async () => {
    const feed = outagedFeed(9, [4, 7]);
    const { seen, said } = await read(feed, 1);
    expect(seen).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(feed.askedAfter).toEqual([1, 3, 6]);
    expect(said).toEqual([
      'idgov changes: the store has failed for half a minute (@idgov/sdk: the database restarts); still following, on after seq 3 once it answers',
      'idgov changes: the store answers again; following on after seq 4',
      'idgov changes: the store has failed for half a minute (@idgov/sdk: the database restarts); still following, on after seq 6 once it answers',
      'idgov changes: the store answers again; following on after seq 7',
    ]);
  });

  it('an outage that outlasts several reads is said once', async () => {
    let reads = 0;
    const open = async function* (after: number) {
      reads += 1;
      if (reads === 1) yield change(after + 1);
      if (reads <= 4) throw new StoreError('connection refused', { transient: true });
      yield change(after + 1);
    };
    const said: string[] = [];
    const seen: number[] = [];
    for await (const c of followedThroughOutages(open, 5, new AbortController().signal, (line) =>
      said.push(line),
    ))
      seen.push(c.seq);
    expect(seen).toEqual([6, 7]);
    expect(said.filter((line) => line.includes('has failed'))).toHaveLength(1);
    expect(said.at(-1)).toBe('idgov changes: the store answers again; following on after seq 7');
  });

  it('goes on from where the reader read through, past changes of kinds left out', async () => {
    // Reads of one kind: no change handed out, the position moved by onPosition alone.
    let reads = 0;
    const askedAfter: number[] = [];
    const open = async function* (after: number, onPosition: (seq: number) => void) {
      askedAfter.push(after);
      reads += 1;
      if (reads === 1) {
        onPosition(40);
        throw new StoreError('restarting', { transient: true });
      }
      yield change(after + 1);
    };
    const seen: number[] = [];
    for await (const c of followedThroughOutages(open, 10, new AbortController().signal, () => {}))
      seen.push(c.seq);
    expect(askedAfter).toEqual([10, 40]);
    expect(seen).toEqual([41]);
  });

  it('ends on a store that never answered (a wrong host or port): no outage to ride through', async () => {
    const unreachable = outagedFeed(
      5,
      [1],
      () => new StoreError('connect ECONNREFUSED 127.0.0.1:1', { transient: true }),
    );
    const said: string[] = [];
    const seen: number[] = [];
    const following = async () => {
      for await (const c of followedThroughOutages(
        unreachable.open,
        0,
        new AbortController().signal,
        (line) => said.push(line),
      ))
        seen.push(c.seq);
    };
    await expect(following()).rejects.toThrow('ECONNREFUSED');
    expect(unreachable.askedAfter).toEqual([0]);
    expect(said).toEqual([]);
  });

  it('ends on a failure that does not pass, and quietly on a stop, with no read after it', async () => {
    const broken = outagedFeed(5, [3], () => new StoreError('no such table', { transient: false }));
    await expect(read(broken)).rejects.toThrow('no such table');
    expect(broken.askedAfter).toEqual([0]);

    const stop = new AbortController();
    const stopped = outagedFeed(5, [3], () => {
      stop.abort();
      return new StoreError('restarting', { transient: true });
    });
    await expect(read(stopped, 0, stop.signal)).resolves.toEqual({ seen: [1, 2], said: [] });
    expect(stopped.askedAfter).toEqual([0]);
  });

  it.each([
    [11, 'one change behind'],
    [12, 'caught up, as a consumer resumed from its saved seq is'],
  ])(
    'from seq %i (%s): rides through an outage, and says the store answers again at the first read that answers, with no new change',
    async (since) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      try {
        // A feed of 12 changes, whose store restarts for 45 s a second after the reader starts, and
        // comes back with nothing new.
        let downUntil = 0;
        const read = async (after: number): Promise<ChangeBatch> => {
          if (performance.now() < downUntil && after >= 12)
            throw new StoreError('the database restarts', { transient: true });
          const records = after < 12 ? [change(12)] : [];
          return { records, through: records.at(-1)?.seq, first: records[0]?.seq, full: false, last: 12 };
        };
        const stop = new AbortController();
        const said: string[] = [];
        const seen: number[] = [];
        const following = (async () => {
          for await (const c of followedThroughOutages(
            (after, onPosition) =>
              readChangeRecords(read, { after, follow: true, pollMs: 500, signal: stop.signal, onPosition }),
            since,
            stop.signal,
            (line) => said.push(line),
          ))
            seen.push(c.seq);
        })();
        await vi.advanceTimersByTimeAsync(1_000);
        downUntil = performance.now() + 45_000;
        await vi.advanceTimersByTimeAsync(40_000);
        expect(said).toHaveLength(1);
        expect(said[0]).toMatch(/^idgov changes: the store has failed for half a minute/);
        await vi.advanceTimersByTimeAsync(10_000);
        expect(said[1]).toBe('idgov changes: the store answers again; following on after seq 12');
        stop.abort();
        await following;
        expect(seen).toEqual(since < 12 ? [12] : []);
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
