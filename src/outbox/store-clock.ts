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
// pool) is taken again, up to three times in all, and the fastest kept.
const PRECISE_ROUND_TRIP_MS = 100;
const READINGS = 3;

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
   * A reading that fails keeps the last one if the clocks did not move apart since; else (none
   * yet, or one an hour behind after a sleep) it rejects, as any store call would, and this
   * machine's time is taken until a reading succeeds.
   */
  async settle(): Promise<void> {
    const read = this.#store.clock?.bind(this.#store);
    if (!read) return;
    const { wall, monotonic } = this.#clocks;
    const moved = Math.abs(wall() - monotonic() - this.#wallLessMono) >= CLOCK_GAP_WARNED_MS;
    if (!moved && monotonic() - this.#readAt < READ_EVERY_MS) return;
    let best: { offset: number; roundTrip: number } | undefined;
    let failure: unknown;
    try {
      for (let n = 0; n < READINGS && !(best && best.roundTrip <= PRECISE_ROUND_TRIP_MS); n++) {
        const sent = monotonic();
        const storeTime = await read();
        const answered = monotonic();
        if (!Number.isFinite(storeTime))
          throw new TypeError(`the store's clock() must give Unix ms (got ${String(storeTime)})`);
        // Taken halfway through the round trip: off by at most half of it.
        if (!best || answered - sent < best.roundTrip)
          best = { offset: storeTime - (sent + answered) / 2, roundTrip: answered - sent };
      }
    } catch (error) {
      failure = error;
    }
    if (!best) {
      if (!moved && this.#offset !== undefined) return;
      this.#offset = undefined;
      throw failure;
    }
    this.#offset = best.offset;
    this.#readAt = monotonic();
    this.#wallLessMono = wall() - this.#readAt;
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
