/**
 * A drain of one listener's due events: claims them, attempts each once with `concurrency` in
 * flight, and marks the expired ones: what `WebhookOutbox.drain()` and `start()`'s loop run.
 *
 * @module
 */
import { attemptClaimed } from './attempt.ts';
import type { ResolvedOutboxOptions } from './options.ts';
import type { DrainSummary, OutboxAttempt } from './reports.ts';
import type { ClaimedEvent } from './store.ts';
import type { WaitingTeller } from './waiting.ts';

// How often a drain marks the events whose window ended, at most.
const EXPIRE_EVERY_MS = 1_000;

/** Who drains, and whom it tells: the outbox's side of {@link drainListener}. */
export interface Drainer {
  readonly listener: string;
  /** Names the outbox in its claims' lease tokens. */
  readonly worker: string;
  readonly waiting: WaitingTeller;
  readonly signal: AbortSignal | undefined;
  /** Each attempt's report as it ends (the outbox's hooks and `onAttempt`). */
  report(attempt: OutboxAttempt): OutboxAttempt;
  /** The drain's summary so far, and at its end. */
  progress(summary: DrainSummary, done: boolean): void;
}

/**
 * Delivers every event of `drainer.listener` due now, each attempted at most once; rejects with
 * the first failure of an attempt (a store that failed, a sender that cannot be used) once the
 * attempts in flight ended.
 */
export async function drainListener(options: ResolvedOutboxOptions, drainer: Drainer): Promise<DrainSummary> {
  const { listener, worker, waiting, signal, report, progress } = drainer;
  const summary: DrainSummary = { attempts: 0, delivered: 0, retried: 0, dead: 0, expired: 0 };
  // Events this call attempted that are pending again: each gets one attempt per drain, and is
  // not claimed again, so an event failing at once cannot take every slot from the others.
  const again = new Set<string>();
  // Expired events are marked at the start, at most once a second while draining, and at the end:
  // a claim never takes an expired event, so marking them is bookkeeping, not worth a round trip
  // to the store before every claim.
  let expiredAt = Number.NEGATIVE_INFINITY;
  const expire = async () => {
    await options.settleClock();
    expiredAt = performance.now();
    summary.expired += await options.store.expire(listener, options.now());
  };
  const tally = ({ outcome, eventId, recorded }: OutboxAttempt) => {
    // Not claimed again by this drain: pending again, or an outcome the store did not take (its
    // lease ends, and the event would be claimed again).
    if (outcome === 'retry' || outcome === 'released' || recorded !== true) again.add(eventId);
    if (outcome !== 'released') {
      summary.attempts += 1;
      if (outcome === 'delivered') summary.delivered += 1;
      else if (outcome === 'retry') summary.retried += 1;
      else summary[outcome] += 1;
    }
    progress(summary, false);
  };
  // Events in flight, a slot each: claimed again once half the slots are free, so that one slow
  // listener answer holds its own slot only, not those of the events claimed with it.
  const { concurrency } = options;
  let busy = 0;
  const inFlight = new Set<string>();
  let freed = () => {};
  const slotFreed = () =>
    new Promise<void>((resolve) => {
      freed = resolve;
    });
  const claims = new Set<Promise<unknown>>();
  let failure: { error: unknown } | undefined;
  while (!signal?.aborted && !failure) {
    if (busy > 0 && concurrency - busy < Math.ceil(concurrency / 2)) {
      await slotFreed();
      continue;
    }
    let since: number;
    let claimed: ClaimedEvent[];
    try {
      if (performance.now() - expiredAt >= EXPIRE_EVERY_MS) await expire();
      await options.settleClock();
      since = performance.now();
      claimed = await options.store.claim({
        listener,
        now: options.now(),
        leaseMs: options.leaseMs,
        limit: concurrency - busy,
        ordered: concurrency === 1,
        // The worker, then the claim: what others waiting for its events are told of it.
        leaseToken: `${worker}/${crypto.randomUUID()}`,
        // In flight too: one recorded pending (a retry due at once) and not yet reported would be
        // claimed again by a claim sent meanwhile.
        exclude: [...again, ...inFlight],
      });
    } catch (error) {
      // The attempts in flight end first (below): the store must not be closed under them.
      failure ??= { error };
      break;
    }
    if (failure) {
      // An attempt failed while this claim was out: its events go back, unattempted.
      await Promise.allSettled(
        claimed.map((event) => options.store.release(event.eventId, event.leaseToken)),
      );
      break;
    }
    if (claimed.length === 0) {
      if (busy === 0) {
        await waiting.say();
        break;
      }
      await slotFreed();
      continue;
    }
    busy += claimed.length;
    for (const event of claimed) inFlight.add(event.eventId);
    const attempts = attemptClaimed(options, claimed, { signal, since }, (attempt) => {
      busy -= 1;
      inFlight.delete(attempt.eventId);
      tally(attempt);
      freed();
      return report(attempt);
    })
      .catch((error: unknown) => {
        failure ??= { error };
        freed();
      })
      .finally(() => claims.delete(attempts));
    claims.add(attempts);
  }
  await Promise.all(claims);
  if (failure) throw failure.error;
  if (!signal?.aborted) await expire();
  progress(summary, true);
  return summary;
}
