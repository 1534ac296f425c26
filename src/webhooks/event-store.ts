import { EVENT_RETENTION_MS } from './limits.ts';

/**
 * Remembers accepted event IDs, as the listener does for idempotency (for 7 days, per listener).
 *
 * @group Webhooks
 */
export interface EventIdStore {
  /** Records `key` at `nowMs`; returns false if it was already recorded within the retention (a duplicate). */
  claim(key: string, nowMs: number): boolean | Promise<boolean>;
}

/**
 * An in-memory {@link EventIdStore} keeping each key for `retentionMs` (default 7 days).
 * Expired keys are swept as new ones arrive, so memory stays bounded by the traffic of one retention.
 *
 * @group Webhooks
 */
export class MemoryEventIdStore implements EventIdStore {
  readonly #retentionMs: number;
  readonly #recordedAt = new Map<string, number>();

  constructor(retentionMs: number = EVENT_RETENTION_MS) {
    this.#retentionMs = retentionMs;
  }

  claim(key: string, nowMs: number): boolean {
    // Insertion order is time order, so expired keys are at the front.
    for (const [old, at] of this.#recordedAt) {
      if (nowMs - at < this.#retentionMs) break;
      this.#recordedAt.delete(old);
    }
    if (this.#recordedAt.has(key)) return false;
    this.#recordedAt.set(key, nowMs);
    return true;
  }

  /** How many event IDs are remembered. */
  get size(): number {
    return this.#recordedAt.size;
  }
}
