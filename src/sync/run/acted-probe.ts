/**
 * Whether the service applies `includeActedAfter`, asked before an incremental run pages the
 * tasks acted on since its last look: the pass is worth its pages only then, and a run without it
 * loses nothing, since the next run looks back to where the last complete look began.
 *
 * @module
 */

import { TimeoutError } from '../../core/errors/errors.ts';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  UnprocessableEntityError,
} from '../../core/errors/status-errors.ts';
import { isoTime } from '../../internal/time.ts';
import type { ResolvedSyncOptions } from './options.ts';
import { syncRequest } from './request.ts';
import type { ServiceClock } from './service-clock.ts';

/** Whether `error` is the service refusing a request as asked (400, 422): a bound it does not take. */
export const refused = (error: unknown): error is APIError =>
  error instanceof BadRequestError || error instanceof UnprocessableEntityError;

/** Warns that the service `did` something that leaves this run without the pass of tasks acted on. */
export function unsupported(options: ResolvedSyncOptions, did: string): void {
  options.logger.warn(
    `asked for the tasks acted on since a time (includeActedAfter), the service ${did}: this incremental run goes without them, and the next run looks back to where the last complete look began. A full run (full: true) sees every change.`,
  );
}

// How far ahead of the run's start the probe asks: no task is acted on then.
const PROBE_AHEAD_MS = 24 * 3_600_000;
// Empty pages with a next token the probe reads: a service that filters as it pages may answer
// some, but one that ignores the bound answers tasks on the first.
const PROBE_PAGES = 3;

/**
 * Whether the service applies `includeActedAfter`: asked for the tasks acted on a day from now,
 * it answers none. One that ignores the bound answers tasks (a pass would page every older task),
 * one that refuses it answers 400 or 422, and one may fail the probe otherwise (5xx, 403, 429 after
 * retries, or no answer in time: a scan for what nothing matches may be slow): each is said in one
 * warning, and the run goes without the pass. A stop, refused credentials, a lost connection and
 * an answer that is not a page are thrown, as any search's. `onPage` is called for each page fetched.
 */
export async function appliesActedAfter(
  options: ResolvedSyncOptions,
  signal: AbortSignal | undefined,
  clock: ServiceClock,
  onPage: () => void,
): Promise<boolean> {
  // No task is acted on a day after this machine's now, unless its clock is a day behind.
  const now = options.now();
  const probe = {
    ...syncRequest(options),
    pageSize: 10,
    expandMask: undefined,
    includeActedAfter: isoTime(now + PROBE_AHEAD_MS),
  };
  let token: string | undefined;
  try {
    for (let pages = 0; pages < PROBE_PAGES; pages++) {
      const { data: page, response } = await options.client.tasks
        .search(token ? { ...probe, pageToken: token } : probe, { signal })
        .withResponse();
      clock.observe(response.headers);
      onPage();
      if (page.list?.some((view) => view !== null && view !== undefined)) {
        unsupported(options, 'answered with tasks acted on tomorrow: it seems not to apply the bound');
        return false;
      }
      token = page.nextPageToken || undefined;
      if (!token) break;
    }
    return true;
  } catch (error) {
    const failed =
      (error instanceof APIError && !(error instanceof AuthenticationError)) || error instanceof TimeoutError;
    if (signal?.aborted || !failed) throw error;
    unsupported(options, `${refused(error) ? 'refused the bound' : 'failed'} (${(error as Error).message})`);
    return false;
  }
}
