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
  settled: boolean;
}

/**
 * Records each attempt's outcome as the `fetch` under the transport sees it, by event ID: the
 * transport retries and reports only the last outcome, while callers need to know whether an earlier
 * attempt of theirs went unanswered (and so may be the one a later 409 refers to).
 */
export class AttemptLog {
  readonly #open = new Map<string, OpenAttempt[]>();

  /** A `fetch` that records outcomes for the event in its `Webhook-Event-Id` header, then calls `base`. */
  wrap(base: typeof globalThis.fetch | undefined): typeof globalThis.fetch {
    return async (input, init) => {
      const request = input instanceof Request ? input : undefined;
      const eventId = request?.headers.get(WebhookHeader.EVENT_ID) ?? undefined;
      const attempt = eventId === undefined ? undefined : this.#open.get(eventId)?.at(-1);
      // The global is read per call, so that whatever patches it (msw, a test double) is honoured.
      const fetch = base ?? globalThis.fetch;
      try {
        const response = await fetch(input, init);
        if (attempt && !attempt.settled)
          Object.assign(attempt, { httpStatus: response.status, settled: true });
        return response;
      } catch (error) {
        if (attempt && !attempt.settled) {
          const timedOut = request?.signal.aborted === true;
          Object.assign(attempt, { error: timedOut ? 'timeout' : 'network', settled: true });
        }
        throw error;
      }
    };
  }

  /** Starts the history of one delivery of `eventId`. */
  begin(eventId: string): void {
    this.#open.set(eventId, []);
  }

  /** Records that an attempt starts; an earlier one still unsettled was given up on: a timeout. */
  attempt(eventId: string, at: number): void {
    const history = this.#open.get(eventId);
    if (!history) return;
    this.#settleAsTimeout(history);
    history.push({ at, settled: false });
  }

  /** Ends the delivery's history and returns it. */
  end(eventId: string): WebhookAttempt[] {
    const history = this.#open.get(eventId) ?? [];
    this.#open.delete(eventId);
    this.#settleAsTimeout(history);
    return history.map(({ at, httpStatus, error }) => ({ at, httpStatus, error }));
  }

  #settleAsTimeout(history: OpenAttempt[]): void {
    const last = history.at(-1);
    if (last && !last.settled) Object.assign(last, { error: 'timeout', settled: true });
  }
}
