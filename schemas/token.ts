import * as z from 'zod/mini';
import { loose, opt } from './wire.ts';

const TokenResponseFields = loose({
  access_token: z.string().check(z.minLength(1, { error: 'expected a non-empty access token' })),
  token_type: opt(z.string()),
  // Some servers send the lifetime as a string ("3600"); a numeric string reads as its number. A
  // lifetime that is not a finite, non-negative number of seconds ("soon", -5, 1e400) is treated as
  // absent, so the client's default lifetime applies: an odd field must not block every call.
  expires_in: z.catch(
    opt(
      z.union([
        z.number().check(z.nonnegative()),
        z.pipe(z.string().check(z.regex(/^\d{1,10}(\.\d+)?$/)), z.transform(Number)),
      ]),
    ),
    undefined,
  ),
});
/**
 * The token endpoint's answer.
 *
 * @group Wire model
 */
export interface TokenResponse extends z.output<typeof TokenResponseFields> {}
/**
 * The token endpoint's answer (RFC 6749 section 5.1). `expires_in` is in seconds.
 *
 * @group Wire model
 */
export const TokenResponseSchema: z.ZodMiniType<
  TokenResponse,
  z.input<typeof TokenResponseFields>
> = TokenResponseFields;

const TokenErrorResponseFields = loose({
  error: opt(z.string()),
  error_description: opt(z.string()),
});
/**
 * The token endpoint's error answer.
 *
 * @group Wire model
 */
export interface TokenErrorResponse extends z.output<typeof TokenErrorResponseFields> {}
/**
 * The token endpoint's error answer (RFC 6749 section 5.2).
 *
 * @group Wire model
 */
export const TokenErrorResponseSchema: z.ZodMiniType<
  TokenErrorResponse,
  z.input<typeof TokenErrorResponseFields>
> = TokenErrorResponseFields;
