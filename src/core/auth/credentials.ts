import { abortable } from '../../internal/wait.ts';
import { ConfigurationError, IdGovError, TimeoutError, TokenProviderError } from '../errors/errors.ts';
import type { TokenEvent } from '../events.ts';
import type { Hooks } from '../hooks.ts';
import type { Logger } from '../logger.ts';
import type { HttpTransport } from '../transport/transport.ts';
import { causeReason } from '../transport/transport-errors.ts';
import { type ClientCredentials, TokenCache, unsendableToken } from './access-token-cache.ts';

export type { ClientCredentials } from './access-token-cache.ts';

/**
 * A static bearer token, sent as is (without a `Bearer ` prefix).
 *
 * @group Client
 */
export interface BearerToken {
  /** The access token. */
  readonly token: string;
}

/**
 * Supplies tokens from your own source (a vault, another OAuth library). Called before every
 * request; after a 401 it is called once more with `forceRefresh: true`, and the request re-sent.
 *
 * @group Client
 */
export type TokenProvider = (context: { forceRefresh: boolean; signal?: AbortSignal }) => Promise<string>;

/**
 * How the client authenticates: one of a static token, client credentials, or a provider.
 *
 * @group Client
 */
export type Credentials = BearerToken | ClientCredentials | TokenProvider;

/**
 * Produces the `Authorization` value for each request and reacts to a 401.
 *
 * @group Client
 */
export interface Authenticator {
  /**
   * The token to send now, waited for until `signal` aborts (the call's timeout or its caller's
   * signal); a token provider is handed `callerSignal` only, the caller's own.
   */
  token(signal?: AbortSignal, callerSignal?: AbortSignal): Promise<string>;
  /** After a 401 to `refused`: returns true if a new token is worth one more try. */
  refused(refused: string): boolean;
  /** Which kind of credentials, for `console.log(client)`; never the secret. */
  describe(): string;
}

function checkToken(token: unknown, what: string): string {
  if (typeof token !== 'string' || token.trim() === '') {
    throw new ConfigurationError(`${what} is empty: nothing would authenticate the request.`);
  }
  const unsendable = unsendableToken(token);
  if (unsendable) {
    throw new ConfigurationError(
      `${what} ${unsendable}: it cannot be sent in a header. Check where the token comes from (not quoted here, as it is a secret).`,
    );
  }
  if (/^bearer\s/i.test(token)) {
    throw new ConfigurationError(
      `${what} starts with "Bearer ": pass the token alone; the SDK adds the scheme.`,
    );
  }
  if (token !== token.trim()) {
    throw new ConfigurationError(`${what} has surrounding whitespace: trim it (a copy-paste slip?).`);
  }
  return token;
}

/**
 * Builds the authenticator for `credentials`; `tokenUrl` is the tenant's `/auth/v1/token`.
 *
 * @group Client
 */
export function createAuthenticator(
  credentials: Credentials,
  tokenUrl: string,
  http: HttpTransport,
  logger: Logger,
  hooks: Hooks<{ readonly token: TokenEvent }>,
): Authenticator {
  if (typeof credentials === 'function') {
    let forceRefresh = false;
    return {
      async token(signal, callerSignal) {
        let token: string;
        try {
          // The provider is given the caller's signal, not one a call's timeout aborts: a provider
          // that shares one fetch among calls would fail them all when one call timed out.
          token = await abortable(
            Promise.resolve(
              credentials(callerSignal ? { forceRefresh, signal: callerSignal } : { forceRefresh }),
            ),
            signal,
          );
        } catch (error) {
          if (signal?.aborted || error instanceof IdGovError) throw error;
          throw new TokenProviderError(
            `The token provider failed (${causeReason(error).reason}); no request was sent. Check what it reads the token from.`,
            { cause: error },
          );
        }
        forceRefresh = false;
        return checkToken(token, 'The token returned by the token provider');
      },
      refused() {
        forceRefresh = true;
        return true;
      },
      describe: () => 'token provider',
    };
  }
  if ('token' in credentials) {
    const token = checkToken(credentials.token, 'credentials.token');
    return { token: async () => token, refused: () => false, describe: () => 'bearer token' };
  }
  const { clientId, clientSecret } = credentials;
  if (typeof clientId !== 'string' || clientId.trim() === '') {
    throw new ConfigurationError('credentials.clientId is empty: set it or IDGOV_CLIENT_ID.');
  }
  if (typeof clientSecret !== 'string' || clientSecret === '') {
    throw new ConfigurationError('credentials.clientSecret is empty: set it or IDGOV_CLIENT_SECRET.');
  }
  if (clientSecret !== clientSecret.trim()) {
    throw new ConfigurationError('credentials.clientSecret has surrounding whitespace: trim it.');
  }
  const cache = new TokenCache({ clientId, clientSecret }, tokenUrl, http, logger, hooks);
  return {
    token: (signal) => cache.token(signal),
    refused(refused) {
      cache.invalidate(refused);
      return true;
    },
    describe: () => `client credentials (client_id ${clientId})`,
  };
}

/**
 * A token from `auth` for an attempt of `call`, waited for no longer than `timeout` (the attempt's)
 * or until the caller's `signal` aborts. The token request is shared by every call and keeps the
 * client's own timeout and retries: a call that times out leaves it its attempt under way (the
 * next call may use its token), and, when no call waits for it any more, no retry (see
 * {@link TokenCache}), so that nothing holds the process open for nobody.
 */
export async function tokenWithin(
  auth: Authenticator,
  signal: AbortSignal | undefined,
  timeout: number,
  call: { readonly method: string; readonly path: string },
): Promise<string> {
  const waiting = new AbortController();
  const onAbort = () => waiting.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () =>
      waiting.abort(
        new TimeoutError(
          `${call.method} ${call.path} waited ${timeout} ms for an access token without getting one; raise timeout or check the token endpoint (or provider).`,
        ),
      ),
    timeout,
  );
  try {
    return await auth.token(waiting.signal, signal ?? undefined);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
