import { ConfigurationError } from '../core/errors.ts';
import {
  type CallOptions,
  createTransport,
  type HttpTransport,
  type TransportOptions,
} from '../core/http.ts';
import { lazily, loadError } from '../core/lazy.ts';
import type { Logger } from '../core/logger.ts';
import { pathParam, requireSecureUrl } from '../core/url.ts';
import { VERSION } from '../version.ts';
import type { AttemptLog, WebhookAttempt } from './attempts.ts';
import { serializeBody } from './body.ts';
import { eventIdOrNew } from './event-id.ts';
import { DEFAULT_MAX_BODY_BYTES, LISTENER_PATH, WebhookHeader } from './limits.ts';
import { type HmacAuth, hmacSigner, type JwtAuth, jwtSigner, type Signer } from './signers.ts';

/**
 * Where and how to deliver, shared by both authentication methods.
 *
 * @group Webhooks
 */
export interface WebhookSenderCommonOptions extends TransportOptions {
  /**
   * The full listener URL shown to the administrator,
   * `https://<tenant>/api/v1/webhooks/incoming/<listener_id>`. Or give `baseUrl` and `listenerId`.
   */
  readonly url?: string | undefined;
  /** The tenant base URL, with `listenerId`, instead of `url`. */
  readonly baseUrl?: string | undefined;
  /** The listener ID, with `baseUrl`, instead of `url`. */
  readonly listenerId?: string | undefined;
  /** Largest body in bytes of UTF-8. Default 65,536 (the service's 64 KB); some services apply 64,000. */
  readonly maxBodyBytes?: number | undefined;
}

/**
 * Options of {@link WebhookSender}: where to deliver, and exactly one of `hmac` or `jwt`.
 *
 * @group Webhooks
 */
export type WebhookSenderOptions = WebhookSenderCommonOptions &
  ({ readonly hmac: HmacAuth; readonly jwt?: never } | { readonly jwt: JwtAuth; readonly hmac?: never });

/**
 * Options of {@link WebhookSender.sign}.
 *
 * @group Webhooks
 */
export interface SignOptions {
  /** The event ID (a lower-case UUID v4). Default: a new one. Reuse it to retry the same event. */
  readonly eventId?: string | undefined;
  /** Unix time in whole seconds. Default: now. */
  readonly timestamp?: number | undefined;
}

/**
 * Options of {@link WebhookSender.send}.
 *
 * @group Webhooks
 */
export interface SendOptions extends CallOptions {
  /** The event ID (a lower-case UUID v4). Default: a new one. Reuse it to resend an event safely. */
  readonly eventId?: string | undefined;
  /**
   * Extra headers for this call (a trace ID, a proxy's), merged by name whatever their casing. The
   * signing headers win: `Content-Type`, `Webhook-Timestamp`, `Webhook-Event-Id`, `Webhook-Signature`
   * and `Authorization` cannot be overridden; a `User-Agent` goes before the SDK's.
   */
  readonly headers?: Record<string, string> | undefined;
}

/**
 * A signed request, ready for any HTTP client: POST `body` with `headers` to the listener URL.
 *
 * @group Webhooks
 */
export interface SignedWebhook {
  /** `Content-Type`, `Webhook-Timestamp`, `Webhook-Event-Id`, and `Webhook-Signature` or `Authorization`. */
  readonly headers: Record<string, string>;
  /** The JSON body; send exactly this text (as UTF-8), or the signature will not match. */
  readonly body: string;
  /** The event ID in the headers. */
  readonly eventId: string;
}

/**
 * The outcome of {@link WebhookSender.send}.
 *
 * A `duplicate` means the listener already had this event ID. When `earlierAttemptUnanswered` is
 * true, an earlier attempt of this very send got no answer (it timed out or lost its connection)
 * and most likely reached the listener: the 409 is probably our own delivery. When false, the event
 * was accepted before this send began (an earlier send, or another sender with the same event ID).
 *
 * @group Webhooks
 */
export interface WebhookDelivery {
  /** `delivered` (2xx), or `duplicate` (409: the listener had already accepted this event ID; not a failure). */
  readonly status: 'delivered' | 'duplicate';
  /** The event ID delivered. */
  readonly eventId: string;
  /** Attempts made, 1 when the first succeeded. */
  readonly attempts: number;
  /** The listener's HTTP status. */
  readonly httpStatus: number;
  /** Every attempt in order: the status it was answered with, or why it got none. */
  readonly history: readonly WebhookAttempt[];
  /**
   * An earlier attempt of this send went unanswered (timed out, or lost its connection). With
   * `duplicate`, that attempt most likely is the one the listener accepted (see above).
   */
  readonly earlierAttemptUnanswered: boolean;
}

const DEFAULT_MAX_RETRIES = 3;

type DeliverModule = typeof import('./deliver.ts');
// The delivery (attempt log, advice per status) loads with the first send, as the HTTP layer does.
const loadDeliver: () => Promise<DeliverModule> = lazily(() => import('./deliver.ts'));

function listenerUrl(options: WebhookSenderCommonOptions): { url: string; baseUrl: string } {
  for (const option of ['url', 'baseUrl'] as const) {
    // A fragment is never sent, but the JWT aud would carry it: every delivery would get 401.
    if (typeof options[option] === 'string' && options[option].includes('#')) {
      throw new ConfigurationError(
        `${option} has a #fragment (got ${options[option]}): remove it; the listener URL has none.`,
      );
    }
  }
  if (options.url !== undefined) {
    const url = requireSecureUrl(options.url, 'url');
    const at = new URL(url).pathname.indexOf(LISTENER_PATH);
    if (at < 0 || new URL(url).pathname.length === at + LISTENER_PATH.length) {
      throw new ConfigurationError(
        `url must be a listener URL ending in ${LISTENER_PATH}<listener_id> (got ${url}); or pass baseUrl and listenerId.`,
      );
    }
    const origin = new URL(url).origin;
    return { url, baseUrl: origin + new URL(url).pathname.slice(0, at) };
  }
  if (options.baseUrl === undefined) {
    throw new ConfigurationError('Pass url (the full listener URL), or baseUrl and listenerId.');
  }
  const baseUrl = requireSecureUrl(options.baseUrl, 'baseUrl');
  let id: string;
  try {
    id = pathParam('listenerId', options.listenerId);
  } catch (error) {
    throw new ConfigurationError((error as Error).message.replace(/^@idgov\/sdk: /, ''));
  }
  return { url: `${baseUrl}${LISTENER_PATH}${id}`, baseUrl };
}

function now(): number {
  return Math.floor(Date.now() / 1000);
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
  readonly #signer: Signer;
  readonly #maxBodyBytes: number;
  readonly #http: HttpTransport;
  readonly #logger: Logger;
  // Made on the first send, with deliver.ts: what each attempt's fetch saw.
  #attemptLog: AttemptLog | undefined;

  constructor(options: WebhookSenderOptions) {
    ({ url: this.url, baseUrl: this.baseUrl } = listenerUrl(options));
    if (options.hmac && options.jwt)
      throw new ConfigurationError('Pass hmac or jwt, not both: a listener uses one.');
    if (options.hmac) this.#signer = hmacSigner(options.hmac);
    else if (options.jwt) this.#signer = jwtSigner(options.jwt, this.url, this.baseUrl);
    else
      throw new ConfigurationError(
        'Pass hmac: { secret } or jwt: { privateKey, kid }, as the listener is configured.',
      );
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (!Number.isInteger(this.#maxBodyBytes) || this.#maxBodyBytes < 2) {
      throw new ConfigurationError(
        `maxBodyBytes must be a whole number of bytes (got ${options.maxBodyBytes}).`,
      );
    }
    const base = options.fetch;
    // Only a send calls it, after making the attempt log; it records each attempt's outcome.
    const fetch: typeof globalThis.fetch = (input, init) =>
      (this.#attemptLog as AttemptLog).record(base, input, init);
    ({ http: this.#http, logger: this.#logger } = createTransport(
      { ...options, fetch },
      {
        maxRetries: DEFAULT_MAX_RETRIES,
        userAgent: `idgov-sdk-js/${VERSION}`,
      },
    ));
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
    if (!Number.isInteger(timestamp) || timestamp < 0) {
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
    const body = serializeBody(payload, this.#maxBodyBytes);
    const eventId = eventIdOrNew(options.eventId);
    await this.#signer.ready();
    let delivering: DeliverModule;
    try {
      delivering = await loadDeliver();
    } catch (error) {
      throw loadError(`POST ${new URL(this.url).pathname}`, error, options.signal);
    }
    this.#attemptLog ??= new delivering.AttemptLog();
    return delivering.deliver({
      http: this.#http,
      logger: this.#logger,
      attemptLog: this.#attemptLog,
      url: this.url,
      kind: this.#signer.kind,
      body: body.bytes,
      eventId,
      options,
      headers: () => this.#headers(body.bytes, eventId, now()),
      secrets: () => this.#signer.secrets(),
    });
  }

  /** What `JSON.stringify(sender)` shows: the URL and the kind of authentication, never key material. */
  toJSON(): { url: string; auth: string } {
    return { url: this.url, auth: this.#signer.description };
  }
}
