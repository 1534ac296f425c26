import { WebhookHeader } from './limits.ts';

/**
 * One attempt of a {@link WebhookSender.send}: the listener's answer, or why none came.
 *
 * @group Webhooks
 */
export interface WebhookAttempt {
  /** When the attempt started, in ms since the epoch. */
  readonly at: number;
  /** The listener's HTTP status, when it answered. */
  readonly httpStatus?: number | undefined;
  /**
   * Why no answer came: `timeout` (the attempt's time ran out) or `network` (the connection failed
   * or dropped). Either way the listener may have received and accepted the request.
   */
  readonly error?: 'timeout' | 'network' | undefined;
}

interface OpenAttempt {
  at: number;
  httpStatus?: number;
  error?: 'timeout' | 'network';
  /** A request has been matched to it. */
  claimed: boolean;
  settled: boolean;
}

/**
 * The attempts of one delivery, as they happen.
 */
export class DeliveryAttempts {
  readonly #attempts: OpenAttempt[] = [];
  readonly #done: () => void;

  constructor(done: () => void) {
    this.#done = done;
  }

  /** Records that an attempt starts; an earlier one still unsettled was given up on: a timeout. */
  start(at: number): void {
    this.#settleAsTimeout();
    this.#attempts.push({ at, claimed: false, settled: false });
  }

  /** The attempt under way, if it has not settled yet. */
  get current(): OpenAttempt | undefined {
    const last = this.#attempts.at(-1);
    return last?.settled === false ? last : undefined;
  }

  /** Ends the delivery and returns its history. */
  end(): WebhookAttempt[] {
    this.#done();
    this.#settleAsTimeout();
    return this.#attempts.map(({ at, httpStatus, error }) => ({ at, httpStatus, error }));
  }

  #settleAsTimeout(): void {
    const open = this.current;
    if (open) Object.assign(open, { error: 'timeout', settled: true });
  }
}

/**
 * Records each attempt's outcome as the `fetch` under the transport sees it, by event ID: the
 * transport retries and reports only the last outcome, while callers need to know whether an earlier
 * attempt of theirs went unanswered (and so may be the one a later 409 refers to). Two deliveries of
 * one event ID at once through one sender cannot be told apart by their requests: each request is
 * matched to the oldest attempt under way that has none yet, so every attempt gets one outcome.
 */
export class AttemptLog {
  readonly #open = new Map<string, Set<DeliveryAttempts>>();

  /** Calls `base` (the global `fetch` when undefined), recording the outcome for the event in the request's `Webhook-Event-Id` header. */
  async record(
    base: typeof globalThis.fetch | undefined,
    input: Parameters<typeof globalThis.fetch>[0],
    init?: Parameters<typeof globalThis.fetch>[1],
  ): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const eventId = request?.headers.get(WebhookHeader.EVENT_ID) ?? undefined;
    let attempt: OpenAttempt | undefined;
    for (const delivery of (eventId && this.#open.get(eventId)) || []) {
      if (delivery.current && !delivery.current.claimed) {
        attempt = delivery.current;
        attempt.claimed = true;
        break;
      }
    }
    // The global is read per call, so that whatever patches it (msw, a test double) is honoured.
    const fetch = base ?? globalThis.fetch;
    try {
      const response = await fetch(input, init);
      if (attempt && !attempt.settled) Object.assign(attempt, { httpStatus: response.status, settled: true });
      return response;
    } catch (error) {
      if (attempt && !attempt.settled) {
        const timedOut = request?.signal.aborted === true;
        Object.assign(attempt, { error: timedOut ? 'timeout' : 'network', settled: true });
      }
      throw error;
    }
  }

  /** Starts recording one delivery of `eventId`; call `end()` on the result when it is over. */
  begin(eventId: string): DeliveryAttempts {
    const deliveries = this.#open.get(eventId) ?? new Set();
    this.#open.set(eventId, deliveries);
    const delivery = new DeliveryAttempts(() => {
      deliveries.delete(delivery);
      if (deliveries.size === 0) this.#open.delete(eventId);
    });
    deliveries.add(delivery);
    return delivery;
  }
}
