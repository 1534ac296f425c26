import { ConfigurationError } from '../core/errors/errors.ts';
import type { TransportEvents } from '../core/events.ts';
import type { Hooks } from '../core/hooks.ts';
import type { Logger } from '../core/logger.ts';
import type { AttemptReport } from '../core/transport/attempt-report.ts';
import { HttpTransport } from '../core/transport/transport.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { maskedUrl } from '../internal/url.ts';
import { serializeBody } from './body.ts';
import { eventIdOrNew } from './event-id.ts';
import { WebhookHeader } from './limits.ts';
import { webhookHint } from './listener-answers.ts';
import {
  resolveSenderOptions,
  type SendOptions,
  type SignedWebhook,
  type SignOptions,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookSenderOptions,
} from './sender-options.ts';
import type { Signer } from './signers.ts';

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** A transport attempt as the sender reports it: the listener's status, or why none came. */
function asWebhookAttempt({ startedAt, status, error }: AttemptReport): WebhookAttempt {
  // An answer's status is the verdict, even when its (error) body broke off afterwards.
  if (status !== undefined) return { at: startedAt, httpStatus: status, error: undefined };
  return { at: startedAt, httpStatus: undefined, error: error === 'network' ? 'network' : 'timeout' };
}

/**
 * Signs and delivers inbound webhook calls to a listener, with HMAC or a JWT.
 *
 * Each event is serialised once; the signed bytes are the sent bytes. Every attempt of one
 * delivery carries the same event ID and body, and a fresh timestamp and signature. A 409 means
 * the listener already had the event: {@link WebhookSender.send} reports it as `duplicate`.
 *
 * @example
 * const sender = new WebhookSender({ url: process.env.IDGOV_WEBHOOK_URL!, hmac: { secret } });
 * const result = await sender.send({ employee_id: '12345', status: 'terminated' });
 * console.log(result.status, result.eventId);
 *
 * @group Webhooks
 */
export class WebhookSender {
  /** The listener URL requests go to (the JWT `aud`). */
  readonly url: string;
  /** The tenant base URL (the JWT `sub` by default). */
  readonly baseUrl: string;
  /**
   * Typed hooks: `sender.hooks.on('retry', (event) => ...)` is told of every retry of every
   * delivery from now on (also `request`, `response`, `requestEnd`); each event names its event ID.
   */
  readonly hooks: Hooks<TransportEvents>;
  readonly #signer: Signer;
  readonly #maxBodyBytes: number;
  readonly #http: HttpTransport;
  readonly #logger: Logger;

  constructor(options: WebhookSenderOptions) {
    const resolved = resolveSenderOptions(options);
    ({
      url: this.url,
      baseUrl: this.baseUrl,
      signer: this.#signer,
      maxBodyBytes: this.#maxBodyBytes,
    } = resolved);
    this.#http = new HttpTransport(resolved.transport);
    this.#logger = this.#http.logger;
    this.hooks = resolved.transport.hooks;
  }

  /**
   * Builds a sender and prepares its key at once: `new WebhookSender()` checks everything it can
   * synchronously (key type, size and parameters); this also imports the key, so that a key only an
   * import can fault (an EC point off its curve) is refused here rather than by the first `sign()`
   * or `send()`. Both refuse with a `ConfigurationError`, before anything is sent.
   */
  static async create(options: WebhookSenderOptions): Promise<WebhookSender> {
    const sender = new WebhookSender(options);
    await sender.#signer.ready();
    return sender;
  }

  async #headers(
    body: Uint8Array<ArrayBuffer>,
    eventId: string,
    timestamp: number,
  ): Promise<Record<string, string>> {
    return {
      [WebhookHeader.CONTENT_TYPE]: 'application/json',
      [WebhookHeader.TIMESTAMP]: String(timestamp),
      [WebhookHeader.EVENT_ID]: eventId,
      ...(await this.#signer.sign(body, eventId, timestamp)),
    };
  }

  /**
   * Signs `payload` (any JSON value, or an already serialised JSON string) for your own HTTP client.
   * Bad input (not JSON, too large, a malformed event ID) throws before anything is signed.
   */
  async sign(payload: unknown, options: SignOptions = {}): Promise<SignedWebhook> {
    const body = serializeBody(payload, this.#maxBodyBytes);
    await this.#signer.ready();
    const eventId = eventIdOrNew(options.eventId);
    const timestamp = options.timestamp ?? now();
    if (wholeNumberProblem(timestamp, 0)) {
      throw new ConfigurationError(`timestamp must be whole Unix seconds (got ${timestamp}).`);
    }
    return { headers: await this.#headers(body.bytes, eventId, timestamp), body: body.text, eventId };
  }

  /**
   * Serialises and checks `payload` exactly as {@link WebhookSender.send} would, without signing or
   * sending: the JSON text to store now and send later (a string is checked and returned as is).
   * Throws the same `RequestValidationError` as `send()` for a payload it would refuse.
   */
  serialize(payload: unknown): string {
    return serializeBody(payload, this.#maxBodyBytes).text;
  }

  /**
   * Delivers `payload`, retrying connection failures, timeouts, 429 and 5xx. Resolves with
   * `delivered` or `duplicate` and the attempt history; throws a typed error for 400, 401 and 403
   * naming the likely cause. Bad input and an unusable key throw before anything is sent.
   */
  async send(payload: unknown, options: SendOptions = {}): Promise<WebhookDelivery> {
    const { bytes } = serializeBody(payload, this.#maxBodyBytes);
    const eventId = eventIdOrNew(options.eventId);
    await this.#signer.ready();
    const { kind } = this.#signer;
    // The signatures and tokens of every attempt: a listener may echo any of them.
    const sent: string[] = [];
    const history: WebhookAttempt[] = [];
    const response = await this.#http.send({
      method: 'POST',
      url: this.url,
      body: bytes,
      callerHeaders: options.headers,
      signal: options.signal,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      acceptStatuses: [409],
      eventId,
      // The listener runs an event ID once: a second delivery is answered 409.
      idempotent: true,
      hooks: options.hooks,
      // The status is the verdict: a 200 with an oversized or broken body is still delivered.
      statusOnly: true,
      // A listener that echoes the request (its signature, the JWT, the secret) must not put them in an error.
      errorContext: {
        hint: (status) => webhookHint(status, kind),
        secrets: () => [...this.#signer.secrets(), ...sent],
      },
      // A fresh timestamp and signature each attempt; the same event ID and bytes.
      beforeAttempt: async (headers) => {
        for (const [name, value] of Object.entries(await this.#headers(bytes, eventId, now()))) {
          headers.set(name, value);
          if (/^(authorization|webhook-signature)$/i.test(name)) sent.push(value.replace(/^Bearer /, ''));
        }
      },
      onAttempt: (report) => history.push(asWebhookAttempt(report)),
    });
    const status = response.status === 409 ? 'duplicate' : 'delivered';
    const earlierAttemptUnanswered = history.slice(0, -1).some((attempt) => attempt.error !== undefined);
    this.#logger.info(`webhook ${eventId} ${status}`, {
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

  /**
   * What `JSON.stringify(sender)` shows: the URL, its query's values (where a gateway keeps its key)
   * as `***`, and the kind of authentication, never key material.
   */
  toJSON(): { url: string; auth: string } {
    return { url: maskedUrl(this.url), auth: this.#signer.description };
  }

  /** What `console.log(sender)` shows in Node: what {@link toJSON} does. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `WebhookSender ${JSON.stringify(this.toJSON())}`;
  }
}
