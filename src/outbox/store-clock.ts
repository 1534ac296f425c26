/**
 * The time an outbox keeps by default: this machine's, unless the store has a clock of its own
 * (a database server that workers on several machines share) and this machine's is a second or
 * more off it. Leases are judged against the times other workers wrote: a worker whose clock ran
 * ahead would take over leases still held, and send an event another worker is sending.
 *
 * @module
 */
import type { Logger } from '../core/logger.ts';
import type { OutboxStore } from './store.ts';

/** Within this, this machine's clock is taken as the store's: no correction below the readings' own error. */
export const CLOCK_TOLERANCE_MS = 1_000;
// Read again this often: the two clocks drift apart, and the server's may be put right.
const READ_EVERY_MS = 60_000;

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
   * A reading that fails after a first one keeps that one (the store's next call says what
   * failed); a first one rejects, as any store call would.
   */
  async settle(): Promise<void> {
    const read = this.#store.clock?.bind(this.#store);
    if (!read) return;
    const { wall, monotonic } = this.#clocks;
    const moved = Math.abs(wall() - monotonic() - this.#wallLessMono) >= CLOCK_TOLERANCE_MS;
    if (!moved && monotonic() - this.#readAt < READ_EVERY_MS) return;
    const sent = monotonic();
    let storeTime: number;
    try {
      storeTime = await read();
    } catch (error) {
      if (this.#offset === undefined) throw error;
      return;
    }
    const answered = monotonic();
    this.#readAt = answered;
    this.#wallLessMono = wall() - answered;
    // Taken halfway through the round trip: off by at most half of it.
    this.#offset = storeTime - (sent + answered) / 2;
    this.#warnOfGap();
  }

  /** Unix ms: this machine's time, or the store's where they differ by {@link CLOCK_TOLERANCE_MS} or more. */
  readonly now = (): number => {
    const wall = this.#clocks.wall();
    if (this.#offset === undefined) return wall;
    const store = Math.round(this.#offset + this.#clocks.monotonic());
    return Math.abs(store - wall) < CLOCK_TOLERANCE_MS ? wall : store;
  };

  #warnOfGap(): void {
    const gap = Math.round(this.#offset! + this.#clocks.monotonic()) - this.#clocks.wall();
    if (Math.abs(gap) < CLOCK_TOLERANCE_MS) {
      this.#warned = undefined;
      return;
    }
    if (this.#warned !== undefined && Math.abs(gap - this.#warned) < CLOCK_TOLERANCE_MS) return;
    this.#warned = gap;
    this.#logger.warn(
      `webhook outbox: this machine's clock is ${(Math.abs(gap) / 1000).toFixed(1)} s ${gap > 0 ? 'behind' : 'ahead of'} the store's; leases and retry times follow the store's clock. Set this machine's clock right (NTP).`,
    );
  }
}
