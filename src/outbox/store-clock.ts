/**
 * The time an outbox keeps by default: the store's, where the store has a clock of its own (a
 * database server that workers on several machines share), else this machine's. Leases are judged
 * against the times other workers wrote: a worker whose clock ran ahead of the holder's would take
 * over leases still held, and send an event another worker is sending.
 *
 * @module
 */
import type { Logger } from '../core/logger.ts';
import type { OutboxStore } from './store.ts';

/** A gap this large between this machine's clock and the store's is warned of. */
export const CLOCK_GAP_WARNED_MS = 1_000;
// Read again this often: the two clocks drift apart, and the server's may be put right.
const READ_EVERY_MS = 60_000;
// A reading is off by up to half its round trip: a slower one (a connection made first, a busy
// pool) is taken again, once, and the faster kept.
const PRECISE_ROUND_TRIP_MS = 100;
const READINGS = 2;
// A reading that failed, with a good one kept, is tried again this much later, not at every call.
const RETRY_FAILED_MS = 5_000;

/** What a {@link StoreClock} reads: the wall clock and a monotonic one (tests put their own). */
export interface Clocks {
  readonly wall: () => number;
  readonly monotonic: () => number;
}

const SYSTEM: Clocks = { wall: () => Date.now(), monotonic: () => performance.now() };

/**
 * The store's time, read now and then and carried forward by this machine's monotonic clock, so
 * that a wall clock put forward or back between two readings changes nothing.
 */
export class StoreClock {
  readonly #store: OutboxStore;
  readonly #logger: Logger;
  readonly #clocks: Clocks;
  /** The store's time less the monotonic clock's, at the last reading. */
  #offset: number | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  /** The wall clock less the monotonic one, at the last reading: a change says a jump, or a sleep. */
  #wallLessMono = 0;
  /** The gap last warned of, so that the same gap is said once. */
  #warned: number | undefined;

  constructor(store: OutboxStore, logger: Logger, clocks: Clocks = SYSTEM) {
    this.#store = store;
    this.#logger = logger;
    this.#clocks = clocks;
  }

  /**
   * Reads the store's clock when it has one and the last reading is a minute old, or the wall
   * clock moved apart from the monotonic one since (put right, or the machine slept, which the
   * monotonic clock does not count): awaited before the outbox judges a lease or dates an event.
   * Callers at once share one reading. A reading that fails keeps the last one if the clocks did
   * not move apart since (tried again 5 s on); else (none yet, or one an hour behind after a
   * sleep) it rejects, as any store call would, and this machine's time is taken until one succeeds.
   *
   * `wait: 'moved'` waits only where the clocks moved apart (the time carried is then wrong);
   * a reading merely due is started and not waited for: what a lease's heartbeat needs, which
   * must not wait on a slow reading once a minute.
   */
  settle(wait: 'due' | 'moved' = 'due'): Promise<void> {
    if (!this.#store.clock) return Promise.resolve();
    const { wall, monotonic } = this.#clocks;
    const moved = Math.abs(wall() - monotonic() - this.#wallLessMono) >= CLOCK_GAP_WARNED_MS;
    if (!moved && monotonic() - this.#readAt < READ_EVERY_MS) return Promise.resolve();
    if (!this.#reading) {
      const reading = this.#read(moved).finally(() => {
        this.#reading = undefined;
      });
      reading.catch(() => {}); // heard by the callers that wait; one not waited for is not lost
      this.#reading = reading;
    }
    return wait === 'moved' && !moved ? Promise.resolve() : this.#reading;
  }

  /** The reading under way, which callers at once share: no failure lands after a newer success. */
  #reading: Promise<void> | undefined;

  async #read(moved: boolean): Promise<void> {
    const read = () => (this.#store.clock as () => Promise<number>).call(this.#store);
    const { wall, monotonic } = this.#clocks;
    let best: { offset: number; roundTrip: number; wallLessMono: number } | undefined;
    let failure: unknown;
    try {
      for (let n = 0; n < READINGS && !(best && best.roundTrip <= PRECISE_ROUND_TRIP_MS); n++) {
        const before = wall() - monotonic();
        const sent = monotonic();
        const storeTime = await read();
        const answered = monotonic();
        if (!Number.isFinite(storeTime))
          throw new TypeError(`the store's clock() must give Unix ms (got ${String(storeTime)})`);
        // The machine slept (or its clock jumped) while it was on its way: the time may be from
        // before, which the monotonic clock cannot tell. Taken again, and none before it kept.
        if (Math.abs(wall() - answered - before) >= CLOCK_GAP_WARNED_MS) {
          best = undefined;
          continue;
        }
        // Taken halfway through the round trip: off by at most half of it.
        if (!best || answered - sent < best.roundTrip)
          best = {
            offset: storeTime - (sent + answered) / 2,
            roundTrip: answered - sent,
            wallLessMono: before,
          };
      }
    } catch (error) {
      failure = error;
    }
    if (!best) {
      if (!moved && this.#offset !== undefined) {
        this.#readAt = monotonic() - READ_EVERY_MS + RETRY_FAILED_MS;
        return;
      }
      this.#offset = undefined;
      throw failure ?? new Error("the store's clock could not be read: this machine's clock kept jumping");
    }
    this.#offset = best.offset;
    this.#readAt = monotonic();
    this.#wallLessMono = best.wallLessMono;
    this.#warnOfGap();
  }

  /** Unix ms: the store's time where it has a clock (once read), else this machine's. */
  readonly now = (): number =>
    this.#offset === undefined ? this.#clocks.wall() : Math.round(this.#offset + this.#clocks.monotonic());

  #warnOfGap(): void {
    const gap = this.now() - this.#clocks.wall();
    if (Math.abs(gap) < CLOCK_GAP_WARNED_MS) {
      this.#warned = undefined;
      return;
    }
    if (this.#warned !== undefined && Math.abs(gap - this.#warned) < CLOCK_GAP_WARNED_MS) return;
    this.#warned = gap;
    this.#logger.warn(
      `webhook outbox: this machine's clock is ${(Math.abs(gap) / 1000).toFixed(1)} s ${gap > 0 ? 'behind' : 'ahead of'} the store's; leases and retry times follow the store's clock. Set this machine's clock right (NTP).`,
    );
  }
}
