/**
 * The delivery of one webhook send: the request through the transport, each attempt recorded, the
 * listener's answer read as a verdict, advice per status. Loaded with the first send (see
 * `WebhookSender.send`): a sender that only signs or serialises never loads it.
 *
 * @module
 */
import type { HttpResponse, HttpTransport } from '../core/http.ts';
import type { Logger } from '../core/logger.ts';
import { AttemptLog, type WebhookAttempt } from './attempts.ts';
import type { SendOptions, WebhookDelivery } from './sender.ts';
import type { Signer } from './signers.ts';

export { AttemptLog };

/** What {@link deliver} needs of the sender, for one send. */
export interface Delivery {
  readonly http: HttpTransport;
  readonly logger: Logger;
  readonly attemptLog: AttemptLog;
  /** The listener URL. */
  readonly url: string;
  readonly kind: Signer['kind'];
  /** The serialised body, sent as is on every attempt. */
  readonly body: Uint8Array<ArrayBuffer>;
  readonly eventId: string;
  readonly options: SendOptions;
  /** The headers of an attempt, with a fresh timestamp and signature. */
  readonly headers: () => Promise<Record<string, string>>;
  /** Key material an error must never quote (the HMAC secret). */
  readonly secrets: () => readonly string[];
}

// Advice per status; a 401 gets the advice of the sender's own method, never the other's.
const HINTS: Record<number, string> = {
  400: 'The listener refused the request as invalid: a missing header, a timestamp more than 5 minutes from its clock, an event ID that is not a UUID v4, or a body that is not JSON.',
  403: "This machine's source address is not in the listener's allowed CIDRs: ask the administrator to add it.",
};
const UNAUTHENTICATED: Record<Signer['kind'], string> = {
  hmac: "Authentication failed: check the HMAC secret (the exact string shown when the listener was saved, not base64-decoded), that the listener uses HMAC, and this machine's clock.",
  jwt: "Authentication failed: check that the kid is in the listener's JWKS with the public key of this private key, that the service can fetch the JWKS URL, that the listener uses JWT, and this machine's clock (exp).",
};

function webhookHint(status: number, kind: Signer['kind']): string | undefined {
  if (status >= 300 && status < 400) {
    return 'The listener URL redirected; redirects are not followed (they would drop the signature): use the URL shown for the listener.';
  }
  return status === 401 ? UNAUTHENTICATED[kind] : HINTS[status];
}

/** Delivers one event, retrying as the transport does; see `WebhookSender.send`. */
export async function deliver(delivery: Delivery): Promise<WebhookDelivery> {
  const { http, logger, url, kind, body, eventId, options } = delivery;
  const attempts = delivery.attemptLog.begin(eventId);
  // The signatures and tokens of every attempt: a listener may echo any of them.
  const sent: string[] = [];
  let response: HttpResponse;
  let history: WebhookAttempt[];
  try {
    response = await http.send({
      method: 'POST',
      url,
      body,
      callerHeaders: options.headers,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      acceptStatuses: [409],
      // The status is the verdict: a 200 with an oversized or broken body is still delivered.
      statusOnly: true,
      // A listener that echoes the request (its signature, the JWT, the secret) must not put them in an error.
      errorContext: {
        hint: (status) => webhookHint(status, kind),
        secrets: () => [...delivery.secrets(), ...sent],
      },
      beforeAttempt: async (headers) => {
        attempts.start(Date.now());
        // A fresh timestamp and signature each attempt; the same event ID and bytes.
        for (const [name, value] of Object.entries(await delivery.headers())) {
          headers.set(name, value);
          if (/^(authorization|webhook-signature)$/i.test(name)) sent.push(value.replace(/^Bearer /, ''));
        }
      },
    });
  } finally {
    history = attempts.end();
  }
  const status = response.status === 409 ? 'duplicate' : 'delivered';
  const earlierAttemptUnanswered = history.slice(0, -1).some((attempt) => attempt.error !== undefined);
  logger.info(`webhook ${eventId} ${status}`, {
    attempts: response.attempts,
    earlierAttemptUnanswered,
  });
  return {
    status,
    eventId,
    attempts: response.attempts,
    httpStatus: response.status,
    history,
    earlierAttemptUnanswered,
  };
}
