/**
 * The one clock a run goes by: the service's. A run's start (the end of its creation-time range),
 * its windows' ends and the next incremental run's reach come from it, so that a machine clock
 * that runs fast or slow, or jumps when put right, loses no task. Read from the `Date` header of
 * the run's first answer (to the second); a service whose answers carry none gives the newest
 * creation time it shows instead (one no more than a day after this machine's clock).
 *
 * @module
 */
import { TaskSearchSortBy } from '../../../schemas/enums.ts';
import type { ResolvedSyncOptions } from './options.ts';
import { syncRequest } from './request.ts';
import { copyTime } from './rows.ts';

/**
 * How finely the service's clock is told: `Date` names a second. A run ends at the last millisecond
 * of the second its clock named, so that a task created in that second before the answer is inside
 * it; the next run reaches back this much more than its overlap, for the tasks created in that
 * second after the run paged past it.
 */
export const CLOCK_GRAIN_MS = 1_000;

/** The time an answer's `Date` header gives (Unix ms: the last of its second), or undefined when it has none that reads. */
export function answerDate(headers: Headers): number | undefined {
  const at = Date.parse(headers.get('date') ?? '');
  return Number.isNaN(at) ? undefined : Math.floor(at / CLOCK_GRAIN_MS) * CLOCK_GRAIN_MS + CLOCK_GRAIN_MS - 1;
}

// A `Date` further than this from this machine's clock is taken for a broken one (a proxy's, a node
// put a year off), not for this machine's error: a run that went by it would hide tasks for good.
const BELIEVABLE_MS = 24 * 3_600_000;

/** The service's time, as the first answer of a run that carried a `Date` header told it. */
export class ServiceClock {
  #at: number | undefined;
  #told = false;
  readonly #options: ResolvedSyncOptions;

  constructor(options: ResolvedSyncOptions) {
    this.#options = options;
  }

  /** Takes the service's time from `headers`, unless an earlier answer gave it, or it is not believable. */
  observe(headers: Headers): void {
    if (this.#at !== undefined) return;
    const at = answerDate(headers);
    if (at === undefined) return;
    if (Math.abs(at - this.#options.now()) <= BELIEVABLE_MS) {
      this.#at = at;
    } else if (!this.#told) {
      this.#told = true;
      this.#options.logger.warn(
        `task sync: the service's Date header (${headers.get('date')}) is more than a day from this machine's clock: not believed; the run goes by the newest creation time the service shows`,
      );
    }
  }

  /** Whether an answer's `Date` told the time (rather than the newest creation time, or this machine's clock). */
  get toldByDate(): boolean {
    return this.#at !== undefined;
  }

  /**
   * The service's time: the one an answer gave, or else asked for with a search of the newest
   * task; a service that tells neither (no `Date`, no task) leaves the machine's clock, said once.
   */
  async now(signal: AbortSignal | undefined): Promise<number> {
    if (this.#at !== undefined) return this.#at;
    const options = this.#options;
    const request = {
      ...syncRequest(options),
      sortBy: TaskSearchSortBy.REVERSE_CREATED_AT,
      pageSize: 10,
      expandMask: undefined,
    };
    const { data, response } = await options.client.tasks.search(request, { signal }).withResponse();
    this.observe(response.headers);
    if (this.#at !== undefined) return this.#at;
    // A task stamped far ahead (a node's clock a year off) is not the service's time: a run that went
    // by it would leave every task created until then to no incremental run.
    const believable = options.now() + BELIEVABLE_MS;
    const newest = data.list
      ?.map((view) => copyTime(view?.task?.createdAt))
      .map((at) => (at === undefined ? Number.NaN : Date.parse(at)))
      .find((at) => at <= believable);
    if (newest !== undefined) return newest;
    options.logger.warn(
      data.list?.length
        ? "task sync: the service's answers carry no Date header, and its newest tasks are dated more than a day after this machine's clock: this run goes by this machine's clock"
        : "task sync: the service's answers carry no Date header and it holds no task: this run goes by this machine's clock",
    );
    return options.now();
  }
}
