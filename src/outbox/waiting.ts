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

  /** Nothing could be claimed: if another worker holds events of the listener, says so (log and hook). */
  async say(): Promise<void> {
    const { store, now, logger, hooks } = this.#options;
    const held = await store.leases?.(this.#listener, now(), 100);
    for (const lease of held ?? []) {
      if (this.#told.has(lease.holder)) continue;
      this.#told.add(lease.holder);
      const until = new Date(lease.until).toISOString();
      logger.warn(
        `webhook outbox: waiting for event ${lease.eventId}, held by ${lease.holder} until ${until} unless renewed`,
      );
      hooks.emit('waiting', () => ({
        listener: this.#listener,
        eventId: lease.eventId,
        holder: lease.holder,
        until,
      }));
    }
  }
}
