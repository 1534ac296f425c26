/**
 * Saying what a drain waits for: events of its listener another worker holds, each holder once.
 *
 * @module
 */
import type { ResolvedOutboxOptions } from './options.ts';

/** Tells, once a holder, that an outbox waits for events another worker holds. */
export class WaitingTeller {
  readonly #options: ResolvedOutboxOptions;
  readonly #listener: string;
  readonly #told = new Set<string>();

  constructor(options: ResolvedOutboxOptions, listener: string) {
    this.#options = options;
    this.#listener = listener;
  }

  /**
   * Nothing could be claimed: if other workers hold events of the listener, says so, once a worker
   * (a lease token is its worker's name, then the claim's); once none is waited for, a later wait
   * is said again.
   */
  async say(): Promise<void> {
    const { store, now, logger, hooks } = this.#options;
    const held = (await store.leases?.(this.#listener, now(), 100)) ?? [];
    if (held.length === 0) this.#told.clear();
    for (const lease of held) {
      const worker = lease.holder.slice(0, Math.max(0, lease.holder.lastIndexOf('/'))) || lease.holder;
      if (this.#told.has(worker)) continue;
      this.#told.add(worker);
      const until = new Date(lease.until).toISOString();
      logger.warn(
        `webhook outbox: waiting for event ${lease.eventId}, held by ${worker} until ${until} unless renewed`,
      );
      hooks.emit('waiting', () => ({
        listener: this.#listener,
        eventId: lease.eventId,
        holder: worker,
        until,
      }));
    }
  }
}
