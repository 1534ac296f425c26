/**
 * Heartbeats: a holder renews its leases while it works, a page or an attempt in flight included,
 * so that a lease can be short (a dead holder is seen in seconds) and yet never runs out under a
 * live one, however slow the service. A holder that cannot renew (its database is gone) is told to
 * stop before its lease ends, so that it never works on, or commits, what another may take.
 *
 * @module
 */

// Renewals a heartbeat has under way at most: past that, a beat sends none (the deadline still holds).
const MAX_RENEWALS_IN_FLIGHT = 3;

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
 * Renews the leases of every piece of work in hand, a sixth of a lease apart, in one call: each
 * piece is {@link Heartbeat.hold | held} while it is worked on. A piece whose lease another took
 * is told `lost` at once; a piece is told `lost` when no renewal succeeded for two thirds of a
 * lease, counted from before the claim that took it (the lease was written then): checked every
 * sixth of a lease, so that the holder stops with a sixth of its lease or more to spare, before
 * anyone else may take the work.
 */
export class Heartbeat {
  readonly #options: HeartbeatOptions;
  // Work in hand, by key: when its lease was last renewed (or taken), by this process's monotonic
  // clock, and which holding it is (a key held again is new work, which an older renewal's answer
  // must not judge).
  readonly #held = new Map<string, { at: number; holding: number }>();
  #holdings = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  // Renewals under way. One slower than a beat (a busy database) still counts when it answers; one
  // more goes out at each beat beside it (a connection gone silent holds only its own), up to a few.
  // When each renewal under way was sent: only those of the last two thirds of a lease count
  // against the cap, so that renewals that never answer (a blip) do not hold back later ones.
  readonly #inFlight = new Set<{ sent: number }>();
  #failure: string | undefined;

  constructor(options: HeartbeatOptions) {
    this.#options = options;
  }

  /**
   * Work under `key` is in hand, its lease taken at `since` (`performance.now()` from before the
   * claim was sent: the lease runs from then); beats start with the first.
   */
  hold(key: string, since: number = performance.now()): void {
    this.#held.set(key, { at: since, holding: ++this.#holdings });
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#beat(), Math.max(1, Math.floor(this.#options.leaseMs / 6)));
    // A heartbeat alone must not keep a process running that has nothing else to do.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /**
   * Whether the work under `key` may still be started: held, and renewed (or taken) less than two
   * thirds of a lease ago. A claim whose answer came late (a paused process, a lock waited on) must
   * not start work another may take any moment.
   */
  fresh(key: string): boolean {
    const held = this.#held.get(key);
    return held !== undefined && performance.now() - held.at < (this.#options.leaseMs * 2) / 3;
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

  // Every sixth of a lease: first stops the work whose lease can no longer be counted on (a renewal
  // that fails, or hangs, past the deadline), then renews the rest: three tries before the deadline.
  #beat(): void {
    const { leaseMs, lost } = this.#options;
    const deadline = performance.now() - (leaseMs * 2) / 3;
    for (const [key, { at: renewedAt }] of [...this.#held]) {
      if (renewedAt > deadline) continue;
      this.#held.delete(key);
      const why = this.#failure ? ` (${this.#failure})` : '';
      lost(
        key,
        `its lease could not be renewed for ${Math.round((performance.now() - renewedAt) / 1000)} s${why}`,
      );
    }
    if (this.#held.size === 0) {
      this.stop();
      return;
    }
    if (this.#inFlight.size > 0) this.#failure ??= 'a renewal went unanswered';
    const recent = [...this.#inFlight].filter(({ sent }) => sent > deadline).length;
    if (recent < MAX_RENEWALS_IN_FLIGHT) void this.#renew();
  }

  async #renew(): Promise<void> {
    // The lease a renewal writes runs from when it was sent (its time is read then).
    const sent = performance.now();
    const renewal = { sent };
    this.#inFlight.add(renewal);
    const keys = [...this.#held].map(([key, { holding }]) => ({ key, holding }));
    try {
      const still = await this.#options.renew(keys.map(({ key }) => key));
      this.#failure = undefined;
      for (const { key, holding } of keys) {
        const held = this.#held.get(key);
        if (held?.holding !== holding) continue; // done, or held anew since: not this renewal's to judge
        if (still.has(key)) held.at = Math.max(held.at, sent);
        else {
          this.#held.delete(key);
          this.#options.lost(key, 'another holder took its lease over');
        }
      }
    } catch (error) {
      // Tried again at the next beat, until the deadline.
      this.#failure = (error as Error)?.message ?? String(error);
    } finally {
      this.#inFlight.delete(renewal);
      if (this.#held.size === 0) this.stop();
    }
  }
}
