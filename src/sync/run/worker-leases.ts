/**
 * A worker's leases on its work in hand: each cursor's window or batch of open tasks, renewed by
 * one heartbeat a sixth of a lease apart (a page in flight included), so that a short lease still
 * never runs out under a live worker however slow the service, while a dead worker's work passes on
 * within a lease. Work whose lease another took, or that could not be renewed in time, is stopped:
 * its signal aborts, and the cursor lets it go without committing more.
 *
 * @module
 */
import { Heartbeat } from '../../stores/heartbeat.ts';
import type { SyncLease, SyncStore } from '../store.ts';
import type { RunContext } from './context.ts';

/** The leases of one worker's cursors. */
export class WorkerLeases {
  readonly #heartbeat: Heartbeat;
  readonly #working = new Map<string, AbortController>();
  readonly #store: SyncStore;

  /** `store`: the store itself, not one that waits out its failures: a heartbeat must not wait. */
  constructor(store: SyncStore, leaseMs: number) {
    this.#store = store;
    this.#heartbeat = new Heartbeat({
      leaseMs,
      renew: async (holders) => new Set(await store.renewLeases(holders, leaseMs)),
      // Said by the work that stops (see holding): a renewal that no longer finds a lease the
      // holder's own commit just ended (its window done, its refresh committed) stops nothing.
      lost: (holder, why) => this.#working.get(holder)?.abort(new LeaseLost(why)),
    });
  }

  /**
   * `lease`'s holder took a piece of work with a claim sent at `since` (`performance.now()`):
   * renewed until {@link release}; the signal aborts if it is lost.
   */
  hold(lease: SyncLease, since: number): AbortSignal {
    const work = new AbortController();
    this.#working.set(lease.holder, work);
    this.#heartbeat.hold(lease.holder, since);
    return work.signal;
  }

  /** `lease`'s holder is done with its piece of work. */
  release(lease: SyncLease): void {
    this.#working.delete(lease.holder);
    this.#heartbeat.release(lease.holder);
  }

  /** Stops renewing, and ends the leases of `holders` so that their work is free at once (a clean stop). */
  async stop(holders: readonly string[]): Promise<void> {
    this.#heartbeat.stop();
    this.#working.clear();
    await this.#store.endLeases(holders);
  }
}

/** Why a piece of work's lease was lost: the reason its signal aborts with. */
class LeaseLost extends Error {
  readonly why: string;
  constructor(why: string) {
    super(`lease lost: ${why}`);
    this.why = why;
  }
}

/**
 * Does `work` while `lease` holds it (claimed at `since`), renewed by the worker's heartbeat: work
 * whose lease is lost stops (its requests abort), says so, and `lost` is told, rather than the run
 * failing.
 */
export async function holding(
  ctx: RunContext,
  {
    lease,
    leases,
    since,
  }: { readonly lease: SyncLease; readonly leases: WorkerLeases; readonly since: number },
  work: (ctx: RunContext) => Promise<void>,
  lost: () => void,
): Promise<void> {
  const gone = leases.hold(lease, since);
  try {
    await work({ ...ctx, signal: AbortSignal.any([ctx.signal, gone]) });
  } catch (error) {
    if (ctx.signal.aborted || !gone.aborted) throw error;
    const why = gone.reason instanceof LeaseLost ? gone.reason.why : String(gone.reason);
    ctx.options.logger.warn(
      `task sync: ${lease.holder} stopped its work: ${why}; it passes on to another holder`,
    );
    lost();
  } finally {
    leases.release(lease);
  }
}
