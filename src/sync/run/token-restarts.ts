/**
 * How often a window's query starts again after the service refused its page token, and the error
 * that ends a run when starting again gets it no further.
 *
 * @module
 */
import { PaginationError } from '../../core/errors/errors.ts';
import { isoTime } from '../../internal/time.ts';

/** Times a query starts again after its token was refused, before the window gets further. */
export const TOKEN_RESTARTS = 3;

/**
 * The error of a window whose query started again {@link TOKEN_RESTARTS} times and got no further:
 * one paged by tokens out of creation order (`ordered` false) starts again where order last held; one
 * in a burst gets further only by leaving out what it read (`excludeIds`), which this service does
 * not do (it ignores or refuses the list, or one that long). Either way every run would fail on the
 * raw refusal, saying nothing of why.
 */
export function tokensGaveOut(
  refusal: unknown,
  where: {
    readonly times: number;
    readonly cursor: number;
    readonly read: number;
    readonly ordered: boolean;
  },
): PaginationError {
  const said = (refusal as Error)?.message ?? String(refusal);
  const { times, cursor, read } = where;
  return new PaginationError(
    where.ordered
      ? `the service's page tokens were refused ${times} times before the burst of tasks created at ${isoTime(cursor)} (${read} of them read so far) was paged to its end (${said}): its pages outlast a token, and a query started again there reads the same tasks, since the service does not leave out those read (excludeIds). What was committed stays, and the next run resumes; to get through, have the service keep its page tokens longer or honour excludeIds, or run when it answers faster.`
      : `the service's page tokens were refused ${times} times before a window paged by them, out of creation order, reached its last page (${said}): such a window starts again where order last held, ${isoTime(cursor)}, and got no further. What was committed stays, and the next run resumes; to get through, have the service answer in creation order, or keep its page tokens longer.`,
    { cause: refusal },
  );
}
