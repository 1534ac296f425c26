/**
 * The heartbeat that renews leases while work is in hand: it renews a third of a lease apart, stops
 * work before its lease can end when renewals fail or hang, keeps renewing after one renewal that
 * never answers, and never judges work held anew by an older renewal's answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Heartbeat } from '../../src/stores/heartbeat.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const beats: Heartbeat[] = [];
afterEach(() => {
  for (const beat of beats.splice(0)) beat.stop();
});

function heartbeat(leaseMs: number, renew: (keys: readonly string[]) => Promise<ReadonlySet<string>>) {
  const lost: Array<{ key: string; at: number; why: string }> = [];
  const started = performance.now();
  const beat = new Heartbeat({
    leaseMs,
    renew,
    lost: (key, why) => lost.push({ key, at: performance.now() - started, why }),
  });
  beats.push(beat);
  return { beat, lost, started };
}

describe('a heartbeat', () => {
  it('renews what is held about a sixth of a lease apart, and nothing once it is released', async () => {
    const calls: number[] = [];
    const { beat, started } = heartbeat(600, async (keys) => {
      calls.push(performance.now() - started);
      return new Set(keys);
    });
    beat.hold('w1');
    await sleep(1_000);
    // Every 100 ms (a sixth of 600): about 9 in a second, on a busy machine fewer.
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(calls.length).toBeLessThanOrEqual(11);
    beat.release('w1');
    const before = calls.length;
    await sleep(500);
    expect(calls.length).toBe(before);
  });

  it('stops work whose renewals fail with a sixth of its lease or more to spare, counted from before its claim', async () => {
    const { beat, lost, started } = heartbeat(600, async () => {
      throw new Error('database gone');
    });
    // The claim took 100 ms: the lease runs from before it.
    beat.hold('w1', started - 100);
    await sleep(800);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.why).toMatch(/could not be renewed .*database gone/);
    // Before the lease (600 ms from 100 ms before the start) could end.
    expect(lost[0]?.at).toBeLessThan(500 - 50);
  });

  it('goes on renewing after a renewal that never answers, and stops the work if none answers', async () => {
    let calls = 0;
    const { beat, lost } = heartbeat(600, () => {
      calls += 1;
      return calls === 1 ? new Promise<ReadonlySet<string>>(() => {}) : Promise.resolve(new Set(['w1']));
    });
    beat.hold('w1');
    await sleep(1_200);
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(lost).toEqual([]);

    const hung = heartbeat(600, () => new Promise<ReadonlySet<string>>(() => {}));
    hung.beat.hold('w2');
    await sleep(800);
    expect(hung.lost.map((l) => l.key)).toEqual(['w2']);
  });

  it('counts every renewal that answers, however late: a database slower than a beat does not stop the work', async () => {
    let calls = 0;
    // Each renewal answers 1.5 beats after it went: every one is still out when the next goes.
    const { beat, lost } = heartbeat(600, async (keys) => {
      calls += 1;
      await sleep(150);
      return new Set(keys);
    });
    beat.hold('w1');
    await sleep(1_500);
    expect(lost).toEqual([]);
    expect(calls).toBeGreaterThanOrEqual(5);
  });

  it('renewals that never answer (a blip) do not hold back the renewal of work held after', async () => {
    let hang = true;
    const { beat, lost } = heartbeat(600, (keys) =>
      hang ? new Promise<ReadonlySet<string>>(() => {}) : Promise.resolve(new Set(keys)),
    );
    beat.hold('k1');
    await sleep(350); // three renewals out, none answering
    hang = false;
    beat.hold('k2');
    await sleep(900);
    expect(lost.map((l) => l.key)).toEqual(['k1']);
  });

  it('does not judge work held anew by the answer of a renewal sent before', async () => {
    let answer: (held: ReadonlySet<string>) => void = () => {};
    const { beat, lost } = heartbeat(600, () => new Promise((resolve) => (answer = resolve)));
    beat.hold('w1');
    await sleep(250); // the first renewal is out
    beat.release('w1');
    beat.hold('w1'); // new work under the same holder
    answer(new Set()); // the old renewal: w1's old lease was gone
    await sleep(20);
    expect(lost).toEqual([]);
  });

  it('says lost at once for work another holder took', async () => {
    const { beat, lost } = heartbeat(600, async () => new Set(['kept']));
    beat.hold('kept');
    beat.hold('taken');
    await sleep(350);
    expect(lost.map((l) => [l.key, l.why])).toEqual([['taken', 'another holder took its lease over']]);
  });
});
