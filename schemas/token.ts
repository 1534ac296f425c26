import * as z from 'zod/mini';
import { loose, nullishNumber, opt } from './wire.ts';

/**
 * The token endpoint's answer (RFC 6749 section 5.1). `expires_in` is in seconds.
 *
 * @group Wire model
 */
export const TokenResponseSchema = loose({
  access_token: z.string().check(z.minLength(1, { error: 'expected a non-empty access token' })),
  token_type: opt(z.string()),
  expires_in: nullishNumber,
});
/**
 * The token endpoint's answer.
 *
 * @group Wire model
 */
export type TokenResponse = z.output<typeof TokenResponseSchema>;

/**
 * The token endpoint's error answer (RFC 6749 section 5.2).
 *
 * @group Wire model
 */
export const TokenErrorResponseSchema = loose({
  error: opt(z.string()),
  error_description: opt(z.string()),
});
/**
 * The token endpoint's error answer.
 *
 * @group Wire model
 */
export type TokenErrorResponse = z.output<typeof TokenErrorResponseSchema>;
