import { type TokenResponse, TokenResponseSchema } from '../../../schemas/token.ts';
import { AbortError, TimeoutError } from '../errors/errors.ts';
import { AuthenticationError } from '../errors/status-errors.ts';
import type { TokenEvent } from '../events.ts';
import type { Hooks } from '../hooks.ts';
import type { Logger } from '../logger.ts';
import type { HttpTransport } from '../transport/transport.ts';
import { causeReason } from '../transport/transport-errors.ts';
import { parseResponse } from '../validation/validation.ts';

/**
 * Why `token` cannot go into an `Authorization` header, or undefined. CR, LF and NUL would split or
 * end the header (and fetch would quote the whole value, token included, in its error); other control
 * characters and anything past U+00FF are not header bytes either. The token itself is never quoted.
 */
export function unsendableToken(token: string): string | undefined {
  if (/[\r\n\0]/.test(token)) return 'contains a line break (CR or LF) or NUL';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we look for.
  if (/[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|[^\x00-\xff]/.test(token)) {
    return 'contains a control character or a character that is not allowed in an HTTP header';
  }
  return undefined;
}

/**
 * The one token request in flight, shared by every caller that needs a token now. It has its own
 * controller: when every caller waiting on it has aborted, nobody wants its answer, so it is
 * aborted too instead of retrying for up to a minute and holding the process open. Callers that
 * stopped waiting on their own time (a per-call timeout) leave it its attempt under way, whose
 * token the next call may use (a slow token endpoint would otherwise never give one to calls with
 * a shorter timeout), but no retry.
 */
interface Flight {
  readonly promise: Promise<string>;
  readonly controller: AbortController;
  /** Callers with a signal still waiting. */
  waiters: number;
  /** A caller without a signal (or a background refresh) waits: never abort. */
  pinned: boolean;
  /** Every caller stopped waiting on its own time: no retry is made for nobody. */
  unwanted: boolean;
}

/** A token and when the SDK stops using it. */
interface CachedToken {
  readonly value: string;
  /** After this, callers wait for a new token. */
  readonly hardExpiry: number;
  /** After this, callers still get this token while one background refresh runs. */
  readonly softExpiry: number;
}

// Tokens are dropped this long before `expires_in` ends, so a request never arrives with a dead one.
const MAX_SKEW_MS = 60_000;
// The longest pause between refreshes ahead of expiry that fail.
const MAX_REFRESH_PAUSE_MS = 10_000;
// Without `expires_in` (RFC 6749 makes it optional) the token is kept this long; a 401 still refreshes it.
const DEFAULT_LIFETIME_MS = 300_000;

function lifetimes(response: TokenResponse, now: number): { hardExpiry: number; softExpiry: number } {
  const lifetime =
    typeof response.expires_in === 'number' && response.expires_in >= 0
      ? response.expires_in * 1000
      : DEFAULT_LIFETIME_MS;
  // Short-lived tokens get a proportional skew, else a 60 s skew would make them unusable.
  const skew = Math.min(MAX_SKEW_MS, lifetime / 4);
  return { hardExpiry: now + lifetime - skew, softExpiry: now + lifetime - 2 * skew };
}

/**
 * Client credentials for the token endpoint. Held privately; never logged or inspected.
 *
 * @group Client
 */
export interface ClientCredentials {
  /** OAuth client ID, e.g. `name@tenant.example.com/pcc`. */
  readonly clientId: string;
  /** OAuth client secret. */
  readonly clientSecret: string;
}

/**
 * Caches the OAuth 2.0 client-credentials token of one client.
 *
 * Concurrency contract:
 * - concurrent callers share one token request; a thousand calls on a fresh client make one;
 * - a valid token is returned at once, also while a refresh runs; inside the soft window
 *   (the last two skews of its life) a refresh starts in the background (after one fails, the
 *   next waits up to 10 s);
 * - a caller whose token is past the hard expiry waits for the refresh;
 * - refreshes are single-flight, so a late one can never replace a newer token;
 * - {@link invalidate} drops the token only if it is still the one that was refused;
 * - the shared request is aborted once every caller waiting on it has aborted (a background
 *   refresh or a caller without a signal keeps it going).
 *
 * @group Client
 */
export class TokenCache {
  readonly #credentials: ClientCredentials;
  readonly #tokenUrl: string;
  readonly #http: HttpTransport;
  readonly #logger: Logger;
  readonly #hooks: Hooks<{ readonly token: TokenEvent }>;
  #token: CachedToken | undefined;
  #inflight: Flight | undefined;
  // Until when no refresh ahead of expiry starts, after one failed.
  #quietUntil = 0;
  // Why the next token is fetched, for the `token` hook.
  #reason: TokenEvent['reason'] = 'first';

  constructor(
    credentials: ClientCredentials,
    tokenUrl: string,
    http: HttpTransport,
    logger: Logger,
    hooks: Hooks<{ readonly token: TokenEvent }>,
  ) {
    this.#credentials = credentials;
    this.#tokenUrl = tokenUrl;
    this.#http = http;
    this.#logger = logger;
    this.#hooks = hooks;
  }

  /**
   * A token fit to send now. Its lifetime is reckoned by the monotonic clock (`expires_in` is a
   * duration): a machine clock put back or forward must not keep an expired token, nor drop a good one.
   */
  async token(signal?: AbortSignal): Promise<string> {
    const now = performance.now();
    const cached = this.#token;
    if (cached && now < cached.hardExpiry) {
      if (now >= cached.softExpiry && this.#inflight) this.#inflight.pinned = true;
      else if (now >= cached.softExpiry && now >= this.#quietUntil) this.#refreshAhead(cached);
      return cached.value;
    }
    signal?.throwIfAborted();
    return this.#waitFor(this.#refresh(), signal);
  }

  /**
   * Starts a refresh nobody waits for while `cached` still serves. Its failure is logged and the
   * next one waits a while: every call in the window would otherwise send the token endpoint a
   * grant it refuses (enough, from a busy client, for an identity provider to lock the client out).
   */
  #refreshAhead(cached: CachedToken): void {
    const flight = this.#refresh();
    flight.pinned = true;
    flight.promise.catch((error: unknown) => {
      const pause = Math.min(MAX_REFRESH_PAUSE_MS, (cached.hardExpiry - cached.softExpiry) / 4);
      this.#quietUntil = performance.now() + pause;
      this.#logger.warn(
        `refreshing the access token before it expires failed (${causeReason(error).reason}); the current one is used meanwhile, and the refresh tried again in ${Math.round(pause / 1000)} s`,
      );
    });
  }

  /** Drops `refused` after the API answered 401 to it; a newer token is kept. */
  invalidate(refused: string): void {
    if (this.#token?.value !== refused) return;
    this.#token = undefined;
    this.#reason = 'refused';
  }

  #refresh(): Flight {
    if (this.#inflight) return this.#inflight;
    const controller = new AbortController();
    const flight: Flight = {
      // Told before a retry's wait: given up there, nobody waits out a Retry-After for nothing.
      promise: this.#fetch(controller.signal, () => {
        if (!flight.unwanted || flight.pinned || flight.waiters > 0) return;
        if (this.#inflight === flight) this.#inflight = undefined;
        controller.abort(
          new AbortError('The token request was given up: every call waiting for it timed out.'),
        );
      }).finally(() => {
        if (this.#inflight === flight) this.#inflight = undefined;
      }),
      controller,
      waiters: 0,
      pinned: false,
      unwanted: false,
    };
    this.#inflight = flight;
    return flight;
  }

  async #fetch(signal: AbortSignal, beforeRetry: () => void): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.#credentials.clientId,
      client_secret: this.#credentials.clientSecret,
    });
    const started = performance.now();
    const reason = this.#reason;
    // The flight's own signal, not a caller's: the request is shared, so one caller's abort must not fail the others.
    const response = await this.#http.send({
      method: 'POST',
      url: this.#tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      signal,
      hooks: { retry: beforeRetry },
      errorContext: { tokenEndpoint: true, secrets: () => [this.#credentials.clientSecret] },
    });
    const parsed = parseTokenResponse(response.text);
    const unsendable = unsendableToken(parsed.access_token);
    if (unsendable || parsed.access_token.trim() === '') {
      throw new AuthenticationError(
        `The token endpoint answered with an access_token that ${unsendable ?? 'is empty'}; it was discarded unsent. Check that the base URL points at your tenant.`,
        {
          status: response.status,
          headers: response.headers,
          body: '[redacted: token endpoint answer]',
          request: { method: 'POST', path: new URL(this.#tokenUrl).pathname },
        },
      );
    }
    const token = { value: parsed.access_token, ...lifetimes(parsed, started) };
    this.#token = token;
    this.#reason = 'expiring';
    this.#logger.info('obtained an access token', { expiresIn: parsed.expires_in ?? null });
    this.#hooks.emit('token', () => ({
      reason,
      expiresInSeconds: parsed.expires_in ?? undefined,
      durationMs: performance.now() - started,
    }));
    return token.value;
  }

  #waitFor(flight: Flight, signal: AbortSignal | undefined): Promise<string> {
    if (!signal) {
      flight.pinned = true;
      return flight.promise;
    }
    flight.waiters += 1;
    flight.unwanted = false;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        flight.waiters -= 1;
        reject(signal.reason);
        if (flight.waiters > 0 || flight.pinned) return;
        // Timed out (the call's timeout, or an AbortSignal.timeout()): the attempt under way goes on
        // (the next call may use its token), no retry.
        if (
          signal.reason instanceof TimeoutError ||
          (signal.reason as { name?: unknown })?.name === 'TimeoutError'
        ) {
          flight.unwanted = true;
          return;
        }
        // Nobody wants this answer: stop it now, and let the next caller start afresh.
        if (this.#inflight === flight) this.#inflight = undefined;
        flight.controller.abort();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/**
 * Parses the token answer. On failure nothing of the body is kept: a truncated answer
 * (`{"access_token":"at_SEC`) or a key spelt with a JSON escape would slip past any redaction.
 */
function parseTokenResponse(text: string): TokenResponse {
  return parseResponse(TokenResponseSchema, text, 'token endpoint', false, {
    rawBody: () => `[redacted: token endpoint answer of ${text.length} characters]`,
    note: 'the body is not kept, as it may hold a token',
  });
}
