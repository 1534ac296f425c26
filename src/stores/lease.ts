/**
 * Leases: how a worker holds a piece of shared work (an outbox event, a sync window) so that no
 * other takes it, and how the work passes on when the worker dies. The rules once, in JavaScript
 * for in-memory stores and as SQL for SQLite and PostgreSQL, so that the stores cannot disagree.
 * A leased row has three columns: `lease_token` (who holds it), `leased_at` and `lease_until`
 * (Unix ms, by the holder's clock).
 *
 * @module
 */

/** The lease fields of a row held in memory. */
export interface LeaseFields {
  leaseToken?: string | undefined;
  leasedAt?: number | undefined;
  leaseUntil?: number | undefined;
}

/**
 * Whether a lease holds at `now`: until `leaseUntil`, even for a worker whose clock is behind the
 * holder's. Only a lease taken more than its own length "in the future" is free: the clock jumped back.
 */
export function isHeld(leasedAt: number | undefined, leaseUntil: number | undefined, now: number): boolean {
  if (leasedAt === undefined || leaseUntil === undefined) return false;
  return now < leaseUntil && leasedAt - now <= leaseUntil - leasedAt;
}

/** The fields of a lease taken by `leaseToken` at `now` for `leaseMs`. */
export function taken(leaseToken: string, now: number, leaseMs: number): Required<LeaseFields> {
  return { leaseToken, leasedAt: now, leaseUntil: now + leaseMs };
}

/**
 * The end of a lease renewed at `now` for `leaseMs`, given its current end. A renewal answered late
 * (sent before another that the store took first) must not shorten the lease the newer one gave: an
 * end later than the new one by at most a lease is kept. One later by more is a clock put right
 * since, and the new end, by the clock as it now is, holds: so does a renewal that lands more than
 * a lease after it was sent, which a store cannot tell from one (until the next renewal lands).
 */
export function renewedUntil(current: number | undefined, now: number, leaseMs: number): number {
  const until = now + leaseMs;
  return current !== undefined && current > until && current <= until + leaseMs ? current : until;
}

/**
 * SQL for {@link renewedUntil}: the renewed `lease_until`, given the placeholders of the new end
 * (`until`, which is `now + leaseMs`) and of the lease's length (`leaseMs`).
 */
export function renewedUntilSql(until: string, leaseMs: string): string {
  return `CASE WHEN lease_until > ${until} AND lease_until <= ${until} + ${leaseMs} THEN lease_until ELSE ${until} END`;
}

/** The fields of a row no lease holds. */
export const FREE: Readonly<LeaseFields> = Object.freeze({
  leaseToken: undefined,
  leasedAt: undefined,
  leaseUntil: undefined,
});

/** SQL assignments that free a row's lease. */
export const FREE_SQL = 'lease_token = NULL, leased_at = NULL, lease_until = NULL';

/**
 * SQL: no live lease holds the row at the time in placeholder `now` (the negation of
 * {@link isHeld}). SQLite's `?` is one value per use, so `nowAgain` names the second use of the time.
 */
export function notHeldSql(now: string, nowAgain: string = now): string {
  return `(lease_until IS NULL OR lease_until <= ${now} OR leased_at - ${nowAgain} > lease_until - leased_at)`;
}
