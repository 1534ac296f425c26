/**
 * One delivery attempt of a claimed event, judged and recorded: what a drain does per event.
 *
 * @module
 */

import { ConfigurationError } from '../core/errors/errors.ts';
import { wait } from '../internal/wait.ts';
import { Heartbeat } from '../stores/heartbeat.ts';
import { answerWithoutQueryValues } from './listener-query.ts';
import type { ResolvedOutboxOptions } from './options.ts';
import { judge, scheduledDelay } from './outcome.ts';
import type { OutboxAttempt } from './reports.ts';
import type { AttemptOutcome, ClaimedEvent } from './store.ts';
import { CUT_SHORT_ATTEMPT } from './unrecorded-attempt.ts';

/**
 * Attempts `claimed` at once, their leases renewed by a heartbeat while the attempts are in flight:
 * an attempt whose lease another worker took, or that cannot be renewed in time (the store is
 * gone), is aborted before its lease ends, so that no event is ever sent by two at once. Each
 * report goes through `report` as its attempt ends.
 */
export async function attemptClaimed(
  options: ResolvedOutboxOptions,
  claimed: readonly ClaimedEvent[],
  { signal, since }: { readonly signal: AbortSignal | undefined; readonly since: number },
  report: (attempt: OutboxAttempt) => OutboxAttempt,
): Promise<OutboxAttempt[]> {
  const { store, leaseMs, now, logger } = options;
  const token = claimed[0]?.leaseToken ?? '';
  const lost = new Map(claimed.map((event) => [event.eventId, new AbortController()]));
  const heartbeat = new Heartbeat({
    leaseMs,
    renew: async (ids) => {
      // Renewed by the machine's clock if the store's cannot be read: the renewal says if the store answers.
      await options.settleClock('moved').catch(() => {});
      return new Set(await store.renew(token, ids, now(), leaseMs));
    },
    lost: (eventId, why) => {
      logger.warn(`webhook ${eventId}: the attempt stops: ${why}; the event passes on to another worker`);
      lost.get(eventId)?.abort(new Error(`lease lost: ${why}`));
    },
  });
  // The leases run from when the claim was sent.
  for (const event of claimed) heartbeat.hold(event.eventId, since);
  try {
    // Every attempt ends before this does (the heartbeat stops after them all), a failing one too:
    // its error is thrown once the others are recorded or released.
    const settled = await Promise.allSettled(
      claimed.map(async (event) => {
        const control = lost.get(event.eventId) as AbortController;
        // Its lease may have all but run out before the claim's answer came: released, not sent.
        if (!heartbeat.fresh(event.eventId)) {
          logger.warn(
            `webhook ${event.eventId}: its claim was answered ${Math.round(performance.now() - since)} ms after it was sent, past two thirds of its lease (leaseMs ${leaseMs}): released, not sent; raise leaseMs if this repeats`,
          );
          control.abort(new Error('lease ran out before the attempt'));
        }
        const stop = control.signal;
        // Once the listener answered, the lease needs no renewing: recording the outcome ends it.
        const sent = () => heartbeat.release(event.eventId);
        return report(
          await attemptEvent(options, event, signal ? AbortSignal.any([signal, stop]) : stop, sent),
        );
      }),
    );
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<OutboxAttempt>).value);
  } finally {
    heartbeat.stop();
  }
}

/**
 * Sends `event` once (no retries: the outbox retries on its schedule), and records the outcome.
 * An attempt cut short by `signal` releases the event, due again at once (counted as an attempt
 * if its request had gone out); so does a sender that cannot be used (a `ConfigurationError`,
 * not counted), which is then thrown.
 */
export async function attemptEvent(
  options: ResolvedOutboxOptions,
  event: ClaimedEvent,
  signal: AbortSignal | undefined,
  sent: () => void = () => {},
): Promise<OutboxAttempt> {
  const { sender, store, now, logger } = options;
  // By the monotonic clock: the store's time may be read again during the attempt.
  const started = performance.now();
  let result: Parameters<typeof judge>[0];
  let sending = false;
  try {
    // Stopped, or its lease lost, before it began: nothing is sent (a fetch of one's own may not
    // look at the signal before it sends).
    signal?.throwIfAborted();
    sending = true;
    const delivery = await sender.send(event.body, {
      eventId: event.eventId,
      signal,
      timeout: options.attemptTimeoutMs,
      maxRetries: 0,
    });
    result = { delivery };
  } catch (error) {
    result = { error };
  }
  sent();
  // The machine may have slept through a long attempt; without a reading, this machine's time.
  await options.settleClock('moved').catch(() => {});
  const at = now();
  const base = {
    eventId: event.eventId,
    attempt: event.attempts + 1,
    durationMs: Math.round(performance.now() - started),
  };
  if ('error' in result && signal?.aborted) {
    // Cut short once its request was on its way, the attempt may have reached the listener: it is
    // counted, and the event due again at once, as a release would leave it.
    const cutShort = { state: 'pending', nextAttemptAt: at, answer: { error: CUT_SHORT_ATTEMPT } } as const;
    const released = await (sending
      ? store.complete(event.eventId, event.leaseToken, at, cutShort)
      : store.release(event.eventId, event.leaseToken).then(() => true)
    ).catch((error: unknown) => {
      logger.warn(
        `webhook ${event.eventId}: the claim could not be given up (${(error as Error)?.message ?? error}); it is due again when its lease ends`,
      );
      return false;
    });
    return { ...base, outcome: 'released', recorded: released };
  }
  // A sender that cannot be used (a signing key that does not import) would fail every event
  // alike: the event is released, nothing counted, and the drain fails with the setup to fix,
  // rather than bury the whole backlog as dead.
  if ('error' in result && result.error instanceof ConfigurationError) {
    await store.release(event.eventId, event.leaseToken).catch(() => {});
    throw result.error;
  }
  const verdict = judge(result, at);
  let outcome: AttemptOutcome;
  let nextAttemptAt: number | undefined;
  if (verdict.kind === 'retry') {
    // Retry-After is honoured, but never beyond the longest wait of the schedule: an answer must
    // not be able to push an event out of its window.
    const asked = Math.min(verdict.retryAfterMs ?? 0, Math.max(...options.retrySchedule));
    nextAttemptAt = at + Math.max(scheduledDelay(options.retrySchedule, event.attempts + 1), asked);
    outcome =
      nextAttemptAt < event.expiresAt
        ? { state: 'pending', answer: verdict.answer, nextAttemptAt }
        : { state: 'expired', answer: verdict.answer };
  } else {
    outcome = { state: verdict.kind, answer: verdict.answer };
  }
  const kind = outcome.state === 'pending' ? 'retry' : outcome.state;
  // Logs and hooks (onAttempt) are read by more people than the database: without the listener's key,
  // should it echo its URL. The store keeps the answer whole, beside that URL.
  const shown = answerWithoutQueryValues(verdict.answer, event.listener);
  const recorded = await record(options, event, at, outcome);
  if (recorded === false) {
    logger.warn(`webhook ${event.eventId}: ${kind} not recorded, another worker took the event over`);
  } else if (recorded === undefined) {
    logger.error(
      `webhook ${event.eventId}: ${kind} could not be recorded, the store failing for half a lease; the event is attempted again once its lease ends (a listener that accepted it answers 409, recorded as delivered)`,
    );
  } else if (kind !== 'delivered') {
    logger.info(`webhook ${event.eventId}: ${kind}`, { ...shown });
  }
  return {
    ...base,
    outcome: kind,
    answer: shown,
    nextAttemptAt: kind === 'retry' ? nextAttemptAt : undefined,
    recorded: recorded === true,
  };
}

/**
 * Records an attempt's outcome, trying again while the store fails (a database restarting, a
 * lock held past its timeout) for up to half the lease, so that the outcome of a request the
 * listener answered is not lost and the event not held for a whole lease. `undefined`: the store
 * failed throughout. Not cut short by stop(): an outcome is worth the wait.
 */
async function record(
  { store, leaseMs, logger }: ResolvedOutboxOptions,
  event: ClaimedEvent,
  at: number,
  outcome: AttemptOutcome,
): Promise<boolean | undefined> {
  const giveUpAt = performance.now() + leaseMs / 2;
  for (let delay = 50; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await store.complete(event.eventId, event.leaseToken, at, outcome);
    } catch (error) {
      if (performance.now() + delay > giveUpAt) return undefined;
      logger.warn(
        `webhook ${event.eventId}: recording its outcome failed (${(error as Error)?.message ?? error}); trying again in ${delay} ms`,
      );
      await wait(delay);
    }
  }
}
