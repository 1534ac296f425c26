/**
 * Heartbeats: a holder renews its leases while it works, a page or an attempt in flight included,
 * so that a lease can be short (a dead holder is seen in seconds) and yet never runs out under a
 * live one, however slow the service. A holder that cannot renew (its database is gone) is told to
 * stop before its lease ends, so that it never works on, or commits, what another may take.
 *
 * @module
 */

/** What a {@link Heartbeat} does at each beat. */
export interface HeartbeatOptions {
  /** The lease's length, in ms: the time after the last renewal that declares a holder dead. */
  readonly leaseMs: number;
  /**
   * Renews the leases of the work in hand (in the database's clock, as leases are taken); resolves
   * with the keys of the work still held, which it is told of.
   */
  renew(keys: readonly string[]): Promise<ReadonlySet<string>>;
  /** The work under `key` was lost (taken over), or can no longer be renewed in time: stop it. */
  lost(key: string, why: string): void;
}

/**
 * Renews the leases of every piece of work in hand, a third of a lease apart, in one call: each
 * piece is {@link Heartbeat.hold | held} while it is worked on. A piece whose lease another took
 * is told `lost` at once; every piece is told `lost` when no renewal succeeded for five sixths of
 * a lease (a sixth before it would end, so that the holder stops in time).
 */
export class Heartbeat {
  readonly #options: HeartbeatOptions;
  // Work in hand, by key: when its lease was last renewed (or taken), by this process's monotonic clock.
  readonly #held = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #beating = false;
  #failure: string | undefined;

  constructor(options: HeartbeatOptions) {
    this.#options = options;
  }

  /** Work under `key` is in hand, its lease just taken or renewed; beats start with the first. */
  hold(key: string): void {
    this.#held.set(key, performance.now());
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.#beat(), Math.max(1, Math.floor(this.#options.leaseMs / 3)));
    // A heartbeat alone must not keep a process running that has nothing else to do.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Work under `key` was renewed by other means (a commit renews its lease). */
  renewed(key: string): void {
    if (this.#held.has(key)) this.#held.set(key, performance.now());
  }

  /** Work under `key` is done or given up: no more beats for it; none at all once nothing is held. */
  release(key: string): void {
    this.#held.delete(key);
    if (this.#held.size === 0) this.stop();
  }

  /** Stops beating (the worker stops). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  // Each beat first stops the work whose lease can no longer be counted on (a renewal that fails,
  // or hangs, past the deadline), then renews the rest, one renewal at a time.
  #beat(): void {
    const { leaseMs, lost } = this.#options;
    const deadline = performance.now() - (leaseMs * 5) / 6;
    for (const [key, renewedAt] of [...this.#held]) {
      if (renewedAt > deadline) continue;
      this.#held.delete(key);
      const why = this.#failure ? ` (${this.#failure})` : '';
      lost(
        key,
        `its lease could not be renewed for ${Math.round((performance.now() - renewedAt) / 1000)} s${why}`,
      );
    }
    if (this.#held.size === 0) this.stop();
    else if (!this.#beating) void this.#renew();
  }

  async #renew(): Promise<void> {
    this.#beating = true;
    const sent = performance.now();
    const keys = [...this.#held.keys()];
    try {
      const still = await this.#options.renew(keys);
      this.#failure = undefined;
      for (const key of keys) {
        if (!this.#held.has(key)) continue;
        if (still.has(key)) this.#held.set(key, sent);
        else {
          this.#held.delete(key);
          this.#options.lost(key, 'another holder took its lease over');
        }
      }
    } catch (error) {
      // Tried again at the next beat, until the deadline.
      this.#failure = (error as Error)?.message ?? String(error);
    } finally {
      this.#beating = false;
      if (this.#held.size === 0) this.stop();
    }
  }
}
