/**
 * What a {@link FakeTenant} is made with, and what it counts.
 *
 * @module
 */
import type { ClientCredentials } from '../core/auth/credentials.ts';
import type { WireEntitlement, WireRule, WireTask } from './fake-data.ts';
import type { FaultCounts, FaultOptions } from './faults.ts';

/**
 * Options of {@link FakeTenant}.
 *
 * @group Testing kit
 */
export interface FakeTenantOptions {
  /** Base URL for msw handlers. Default `https://fake-tenant.test`; {@link FakeTenant.listen} sets its own. */
  readonly baseUrl?: string | undefined;
  /** Seed of generated data and tokens. Default 1. */
  readonly seed?: number | undefined;
  /** Stored tasks, or how many realistic ones to generate (dated over the 90 days before `now()`). Default 0. */
  readonly tasks?: readonly WireTask[] | number | undefined;
  /**
   * How many tasks of a realistic history to generate instead ({@link FakeData.history}): mostly
   * recent, some in bursts created at one instant, a third open, the rest closed, some deleted.
   */
  readonly history?: number | undefined;
  /** Stored finding transformation rules. */
  readonly rules?: readonly WireRule[] | undefined;
  /** Stored entitlements by app ID. */
  readonly entitlements?: Readonly<Record<string, readonly WireEntitlement[]>> | undefined;
  /** Lifetime of issued access tokens, in seconds. Default 600. */
  readonly tokenLifetimeSeconds?: number | undefined;
  /** Faults to inject into every request. */
  readonly faults?: FaultOptions | undefined;
  /** Latency added to every API answer, in ms (for benchmarks). Default 0. */
  readonly latencyMs?: number | undefined;
  /** The tenant's clock in ms. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /**
   * The client credentials the token endpoint accepts, e.g. those your code reads from its
   * environment. Default: a client ID of the fake tenant and a fresh secret.
   */
  readonly client?: ClientCredentials | undefined;
}

/**
 * Counters of what the fake tenant saw, for assertions and soak reports.
 *
 * @group Testing kit
 */
export interface FakeTenantStats {
  /** Requests received, faulted ones included. */
  requests: number;
  /** Access tokens issued. */
  tokensIssued: number;
  /** Task search requests answered with a page. */
  searchPages: number;
  /** Of those, how many by `sortBy` (`TASK_SEARCH_SORT_BY_UNSPECIFIED` when none was asked). */
  readonly searchPagesBySort: Record<string, number>;
  /** Webhook requests answered 409. */
  duplicates: number;
  /** Faults injected, by kind. */
  readonly faults: FaultCounts;
}
