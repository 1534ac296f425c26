import { ConfigurationError } from '../core/errors/errors.ts';
import type { TransportEvents } from '../core/events.ts';
import type { HookHandlers } from '../core/hooks.ts';
import {
  type CallOptions,
  type ResolvedTransportOptions,
  resolveTransportOptions,
  TRANSPORT_OPTIONS,
  type TransportOptions,
} from '../core/transport/transport-options.ts';
import { optionKeys, unknownOptionProblem } from '../internal/known-options.ts';
import { wholeNumberProblem } from '../internal/numbers.ts';
import { pathParamProblem, secureUrlProblem, shownUrl, withoutTrailingSlash } from '../internal/url.ts';
import { VERSION } from '../version.ts';
import { DEFAULT_MAX_BODY_BYTES, LISTENER_PATH } from './limits.ts';
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
  /**
   * Handlers told of every attempt, answer, retry and end of this sender's deliveries (each names
   * its event ID); more can be added with `sender.hooks.on()`. A handler that throws is logged and ignored.
   */
  readonly hooks?: HookHandlers<TransportEvents> | undefined;
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
  /** Handlers told of this delivery's attempts, answers and retries, after the sender's own. */
  readonly hooks?: HookHandlers<TransportEvents> | undefined;
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

/** {@link WebhookSenderOptions} with every default applied and checked. */
export interface ResolvedSenderOptions {
  /** The listener URL (the JWT `aud`). */
  readonly url: string;
  /** The tenant base URL (the JWT `sub` by default). */
  readonly baseUrl: string;
  readonly signer: Signer;
  readonly maxBodyBytes: number;
  readonly transport: ResolvedTransportOptions;
}

const DEFAULT_MAX_RETRIES = 3;

const SENDER_OPTIONS = [
  ...optionKeys<Omit<WebhookSenderCommonOptions, keyof TransportOptions>>()([
    'url',
    'baseUrl',
    'listenerId',
    'maxBodyBytes',
    'hooks',
  ]),
  ...TRANSPORT_OPTIONS,
  'hmac',
  'jwt',
];

/** The one place sender options get their defaults; a bad one is refused with a {@link ConfigurationError}. */
export function resolveSenderOptions(options: WebhookSenderOptions): ResolvedSenderOptions {
  const unknown = unknownOptionProblem('WebhookSender', options, SENDER_OPTIONS);
  if (unknown) throw new ConfigurationError(unknown);
  const { url, baseUrl } = listenerUrl(options);
  if (options.hmac && options.jwt)
    throw new ConfigurationError('Pass hmac or jwt, not both: a listener uses one.');
  let signer: Signer;
  if (options.hmac) signer = hmacSigner(options.hmac);
  else if (options.jwt) signer = jwtSigner(options.jwt, url, baseUrl);
  else
    throw new ConfigurationError(
      'Pass hmac: { secret } or jwt: { privateKey, kid }, as the listener is configured.',
    );
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (wholeNumberProblem(maxBodyBytes, 2)) {
    throw new ConfigurationError(
      `maxBodyBytes must be a whole number of bytes (got ${options.maxBodyBytes}).`,
    );
  }
  const transport = resolveTransportOptions(options, {
    maxRetries: DEFAULT_MAX_RETRIES,
    userAgent: `idgov-sdk-js/${VERSION}`,
  });
  return { url, baseUrl, signer, maxBodyBytes, transport };
}

/** `raw` checked as a URL to send signed data to, without a trailing slash. */
function secureUrl(raw: string, option: string): string {
  const problem = secureUrlProblem(raw, option);
  if (problem) throw new ConfigurationError(problem);
  return withoutTrailingSlash(new URL(raw).href);
}

function listenerUrl(options: WebhookSenderCommonOptions): { url: string; baseUrl: string } {
  for (const option of ['url', 'baseUrl'] as const) {
    // A fragment is never sent, but the JWT aud would carry it: every delivery would get 401.
    if (typeof options[option] === 'string' && options[option].includes('#')) {
      throw new ConfigurationError(
        `${option} has a #fragment (got ${shownUrl(options[option]) || 'a URL'}#...): remove it; the listener URL has none.`,
      );
    }
  }
  if (options.url !== undefined) {
    const url = secureUrl(options.url, 'url');
    const at = new URL(url).pathname.indexOf(LISTENER_PATH);
    if (at < 0 || new URL(url).pathname.length === at + LISTENER_PATH.length) {
      throw new ConfigurationError(
        `url must be a listener URL ending in ${LISTENER_PATH}<listener_id> (got ${shownUrl(url)}); or pass baseUrl and listenerId.`,
      );
    }
    const origin = new URL(url).origin;
    return { url, baseUrl: origin + new URL(url).pathname.slice(0, at) };
  }
  if (options.baseUrl === undefined) {
    throw new ConfigurationError('Pass url (the full listener URL), or baseUrl and listenerId.');
  }
  const baseUrl = secureUrl(options.baseUrl, 'baseUrl');
  const badId = pathParamProblem('listenerId', options.listenerId);
  if (badId) throw new ConfigurationError(badId);
  return { url: `${baseUrl}${LISTENER_PATH}${encodeURIComponent(options.listenerId as string)}`, baseUrl };
}
