/**
 * The options of {@link TaskSync}, and the one place they get their defaults.
 *
 * @module
 */

import type { TaskExpandPath } from '../../../schemas/enums.ts';
import type { TaskSearchRequest } from '../../../schemas/task-search.ts';
import type { IdGovClient } from '../../client.ts';
import { ConfigurationError } from '../../core/errors/errors.ts';
import { type HookHandlers, Hooks } from '../../core/hooks.ts';
import { createLogger, type Logger, type LogLevel } from '../../core/logger.ts';
import { optionKeys, unknownOptionProblem } from '../../internal/known-options.ts';
import { wholeNumberProblem } from '../../internal/numbers.ts';
import { filterKey } from '../filter-key.ts';
import type { SyncStore } from '../store.ts';
import type { SyncEvents } from './events.ts';

/**
 * Which tasks to copy: only fields a task never changes, which the service may filter. A filter
 * on fields that change (state, outcome, assignee) would let a task leave the result set between
 * pages and runs, and the copy miss that it changed: filter the copy instead.
 *
 * @group Task sync
 */
export interface SyncFilter {
  /** Task types, as in a search. */
  readonly taskTypes?: TaskSearchRequest['taskTypes'];
  /** App IDs. */
  readonly applicationIds?: readonly string[] | undefined;
  /** App entitlement IDs. */
  readonly appEntitlementIds?: readonly string[] | undefined;
}

/**
 * Options of {@link TaskSync}.
 *
 * @group Task sync
 */
export interface TaskSyncOptions {
  /** The client of the tenant to copy. */
  readonly client: IdGovClient;
  /** Where the copy and its checkpoints live: `SqliteSyncStore` from `@idgov/sdk/sync/sqlite`. */
  readonly store: SyncStore;
  /** Cursors paging at once, each its own window of creation time. A whole number from 1 to 64. Default 8. */
  readonly concurrency?: number | undefined;
  /** Which tasks to copy; default every task. */
  readonly filter?: SyncFilter | undefined;
  /** Expand paths whose objects go into `idgov_expanded`, by `@type` and ID. Default none. */
  readonly expand?: readonly TaskExpandPath[] | undefined;
  /** Tasks a page, 10 to 100. Default 100. */
  readonly pageSize?: number | undefined;
  /**
   * How far before the last run's start an incremental run looks for new tasks, in ms: room for
   * the service's nodes, whose clocks disagree (a task stamped by a slow node), and for tasks whose
   * creation was committed late. Default 10 minutes.
   */
  readonly overlapMs?: number | undefined;
  /** Handlers told of progress, windows and the run's end; more can be added with `sync.hooks.on()`. */
  readonly hooks?: HookHandlers<SyncEvents> | undefined;
  /** Where log lines go. Default: every level to `console.error` (stderr). */
  readonly logger?: Logger | undefined;
  /** What is logged. Default: `IDGOV_LOG`, else `warn` (to stderr). */
  readonly logLevel?: LogLevel | undefined;
  /**
   * How long a cursor's hold on its window (or batch of open tasks) lasts after its last heartbeat,
   * in ms: a worker renews what it holds every sixth of this while it works (a slow page in flight
   * included), so a live worker never loses its work, and a dead one's passes on this long after it
   * was last heard from. From 1,000 to 3,600,000. Default 15 seconds.
   */
  readonly leaseMs?: number | undefined;
  /**
   * Names this worker in the leases it holds, and so in what other workers say while they wait for
   * it (`host-3 pid 4242`). Default `worker`; a random suffix keeps two of one name apart.
   */
  readonly workerName?: string | undefined;
  /**
   * This machine's clock, in Unix ms: of `synced_at`, and of a run's start only when the service
   * tells no time (a run goes by the service's clock: the `Date` of its answers). Default `Date.now`.
   */
  readonly now?: (() => number) | undefined;
}

/** {@link TaskSyncOptions} with every default applied and checked. @internal */
export interface ResolvedSyncOptions {
  readonly client: IdGovClient;
  readonly store: SyncStore;
  readonly concurrency: number;
  readonly filter: SyncFilter;
  /** The filter as canonical JSON: what the copy is checked against. */
  readonly filterKey: string;
  readonly expand: readonly TaskExpandPath[];
  readonly pageSize: number;
  readonly overlapMs: number;
  readonly leaseMs: number;
  readonly workerName: string;
  readonly hooks: Hooks<SyncEvents>;
  readonly logger: Logger;
  readonly now: () => number;
}

const FILTER_FIELDS = ['taskTypes', 'applicationIds', 'appEntitlementIds'] as const;

/**
 * The default lease: renewed every 5 s, it declares a dead worker so 15 s after its last heartbeat,
 * and lets a live one miss two heartbeats (a pause of the process, a database failing over) before
 * it stops its work.
 */
export const DEFAULT_LEASE_MS = 15_000;

function checkedNumber(
  name: string,
  value: number | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  const problem = wholeNumberProblem(value, min, max);
  if (problem) throw new ConfigurationError(`${name} ${problem}.`);
  return value ?? fallback;
}

const SYNC_OPTIONS = optionKeys<TaskSyncOptions>()([
  'client',
  'store',
  'concurrency',
  'filter',
  'expand',
  'pageSize',
  'overlapMs',
  'hooks',
  'logger',
  'logLevel',
  'leaseMs',
  'workerName',
  'now',
]);

/** The one place task sync options get their defaults; a bad one is refused with a {@link ConfigurationError}. @internal */
export function resolveSyncOptions(options: TaskSyncOptions): ResolvedSyncOptions {
  const unknownOption = unknownOptionProblem('TaskSync', options, SYNC_OPTIONS);
  if (unknownOption) throw new ConfigurationError(unknownOption);
  if (!options?.client || !options.store) {
    throw new ConfigurationError(
      'Pass client (an IdGovClient) and store (where the copy is kept, e.g. a SqliteSyncStore).',
    );
  }
  const filter = options.filter ?? {};
  const unknown = Object.keys(filter).filter((key) => !(FILTER_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `filter.${unknown[0]} cannot filter a sync: only ${FILTER_FIELDS.join(', ')} (fields a task never changes) go to the service. Filter the copy for the others (its state, outcome or assignee may change).`,
    );
  }
  const logger = createLogger(options.logger, options.logLevel);
  return {
    client: options.client,
    store: options.store,
    concurrency: checkedNumber('concurrency', options.concurrency, 1, 64, 8),
    filter,
    filterKey: filterKey(filter),
    expand: [...(options.expand ?? [])],
    pageSize: checkedNumber('pageSize', options.pageSize, 10, 100, 100),
    overlapMs: checkedNumber('overlapMs', options.overlapMs, 0, 7 * 24 * 3_600_000, 10 * 60_000),
    leaseMs: checkedNumber('leaseMs', options.leaseMs, 1_000, 3_600_000, DEFAULT_LEASE_MS),
    workerName: options.workerName ?? 'worker',
    hooks: new Hooks<SyncEvents>(logger, options.hooks),
    logger,
    now: options.now ?? Date.now,
  };
}
