/**
 * What a listener's refusals most likely mean, as advice the sender's errors carry.
 *
 * @module
 */
import { TIMESTAMP_TOLERANCE_SECONDS } from './limits.ts';
import type { Signer } from './signers.ts';

// Advice per status; a 401 gets the advice of the sender's own method, never the other's.
const HINTS: Record<number, string> = {
  400: `The listener refused the request as invalid: a missing header, a timestamp more than ${TIMESTAMP_TOLERANCE_SECONDS / 60} minutes from its clock, an event ID that is not a UUID v4, or a body that is not JSON.`,
  403: "This machine's source address is not in the listener's allowed CIDRs: ask the administrator to add it.",
};
const UNAUTHENTICATED: Record<Signer['kind'], string> = {
  hmac: "Authentication failed: check the HMAC secret (the exact string shown when the listener was saved, not base64-decoded), that the listener uses HMAC, and this machine's clock.",
  jwt: "Authentication failed: check that the kid is in the listener's JWKS with the public key of this private key, that the service can fetch the JWKS URL, that the listener uses JWT, and this machine's clock (exp).",
};

/** Advice for a listener's refusal with `status`, for a sender of `kind`. */
export function webhookHint(status: number, kind: Signer['kind']): string | undefined {
  if (status >= 300 && status < 400) {
    return 'The listener URL redirected; redirects are not followed (they would drop the signature): use the URL shown for the listener.';
  }
  return status === 401 ? UNAUTHENTICATED[kind] : HINTS[status];
}
