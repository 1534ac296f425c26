import * as z from 'zod/mini';
import { loose, opt } from './wire.ts';

/** A lifetime in seconds, from a number or a numeric string; anything else reads as absent. */
function secondsOrAbsent(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  return typeof value === 'string' && /^\d{1,10}(\.\d+)?$/.test(value) ? Number(value) : undefined;
}

const TokenResponseFields = loose({
  access_token: z.string().check(z.minLength(1, { error: 'expected a non-empty access token' })),
  token_type: opt(z.string()),
  // Some servers send the lifetime as a string ("3600"); a numeric string reads as its number. A
  // lifetime that is not a finite, non-negative number of seconds ("soon", -5, 1e400) is treated as
  // absent, so the client's default lifetime applies: an odd field must not block every call.
  expires_in: z.optional(z.pipe(z.unknown(), z.transform(secondsOrAbsent))),
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
