import { SeededRandom } from './random.ts';

/**
 * Faults to inject, each a probability per request (0 to 1). Seeded, so a failing run replays.
 *
 * @group Testing kit
 */
export interface FaultOptions {
  /** Answer 503. */
  readonly serverError?: number | undefined;
  /** Answer 429 with `Retry-After: retryAfterSeconds`. */
  readonly rateLimit?: number | undefined;
  /** Drop the connection without an answer (for webhooks: half the time after processing it). */
  readonly drop?: number | undefined;
  /** Answer after `slowMs`. */
  readonly slow?: number | undefined;
  /** `Retry-After` of injected 429s, in seconds. Default 1. */
  readonly retryAfterSeconds?: number | undefined;
  /** Delay of slow answers in ms. Default 200. */
  readonly slowMs?: number | undefined;
  /** PRNG seed. Default 1. */
  readonly seed?: number | undefined;
}

/**
 * What the injector decided for one request.
 *
 * @group Testing kit
 */
export type Fault = 'serverError' | 'rateLimit' | 'drop' | 'slow' | undefined;

/**
 * How many faults of each kind were injected.
 *
 * @group Testing kit
 */
export type FaultCounts = Record<Exclude<Fault, undefined>, number>;

/**
 * Decides, request by request, which fault to inject.
 *
 * @group Testing kit
 */
export class FaultInjector {
  readonly options: FaultOptions;
  readonly counts: FaultCounts = { serverError: 0, rateLimit: 0, drop: 0, slow: 0 };
  readonly #random: SeededRandom;

  constructor(options: FaultOptions = {}) {
    this.options = options;
    this.#random = new SeededRandom(options.seed ?? 1);
  }

  /** The fault for the next request, if any. */
  next(): Fault {
    let roll = this.#random.next();
    for (const kind of ['serverError', 'rateLimit', 'drop', 'slow'] as const) {
      const rate = this.options[kind] ?? 0;
      if (roll < rate) {
        this.counts[kind] += 1;
        return kind;
      }
      roll -= rate;
    }
    return undefined;
  }

  /** A fair coin from the same seeded stream. */
  coin(): boolean {
    return this.#random.next() < 0.5;
  }
}
