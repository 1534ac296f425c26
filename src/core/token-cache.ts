import { type TokenResponse, TokenResponseSchema } from '../../schemas/token.ts';
import { ResponseValidationError } from './errors.ts';
import type { HttpTransport } from './http.ts';
import type { Logger } from './logger.ts';
import { parseResponse } from './validation.ts';

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
 *   (the last two skews of its life) a refresh starts in the background;
 * - a caller whose token is past the hard expiry waits for the refresh;
 * - refreshes are single-flight, so a late one can never replace a newer token;
 * - {@link invalidate} drops the token only if it is still the one that was refused.
 *
 * @group Client
 */
export class TokenCache {
  readonly #credentials: ClientCredentials;
  readonly #tokenUrl: string;
  readonly #http: HttpTransport;
  readonly #logger: Logger;
  #token: CachedToken | undefined;
  #inflight: Promise<string> | undefined;

  constructor(credentials: ClientCredentials, tokenUrl: string, http: HttpTransport, logger: Logger) {
    this.#credentials = credentials;
    this.#tokenUrl = tokenUrl;
    this.#http = http;
    this.#logger = logger;
  }

  /** A token fit to send now. */
  async token(signal?: AbortSignal): Promise<string> {
    const now = Date.now();
    const cached = this.#token;
    if (cached && now < cached.hardExpiry) {
      if (now >= cached.softExpiry) this.#refresh().catch(() => {}); // the next caller sees the failure
      return cached.value;
    }
    return this.#waitFor(this.#refresh(), signal);
  }

  /** Drops `refused` after the API answered 401 to it; a newer token is kept. */
  invalidate(refused: string): void {
    if (this.#token?.value === refused) this.#token = undefined;
  }

  #refresh(): Promise<string> {
    this.#inflight ??= this.#fetch().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #fetch(): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.#credentials.clientId,
      client_secret: this.#credentials.clientSecret,
    });
    const started = Date.now();
    // No caller signal here: the request is shared, so one caller's abort must not fail the others.
    const response = await this.#http.send({
      method: 'POST',
      url: this.#tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      errorContext: { tokenEndpoint: true },
    });
    const parsed = parseTokenResponse(response.text);
    const token = { value: parsed.access_token, ...lifetimes(parsed, started) };
    this.#token = token;
    this.#logger.info('obtained an access token', { expiresIn: parsed.expires_in ?? null });
    return token.value;
  }

  #waitFor(promise: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
    if (!signal) return promise;
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/** Parses the token answer; on failure the kept body has its token redacted. */
function parseTokenResponse(text: string): TokenResponse {
  try {
    return parseResponse(TokenResponseSchema, text, 'token endpoint');
  } catch (error) {
    if (!(error instanceof ResponseValidationError)) throw error;
    throw new ResponseValidationError(
      error.message.replace(/^@idgov\/sdk: /, ''),
      error.path,
      error.issues,
      text.replace(/("(?:access|refresh|id)_token"\s*:\s*)"[^"]*"/g, '$1"[redacted]"'),
    );
  }
}
