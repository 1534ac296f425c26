/**
 * One end of a burst paged from both ends. Tasks created at one instant can only be paged with
 * tokens, a page at a time; two cursors page such a burst at once, one by ascending ticket ID and
 * one by descending, and the window is done once one end has read the task the other's committed
 * pages reached (its edge): their pages then overlap, and between them hold every task. Each end
 * checks that the service pages by `numericId` (an int64), so that the two orders are one read
 * both ways: an end that finds an ID out of that order, or one that is not such an integer, says
 * so, and pages on alone to its last page.
 *
 * @module
 */
import { TaskSearchSortBy } from '../../../schemas/enums.ts';
import type { TaskView } from '../../../schemas/task-search.ts';
import { COVERED_EDGE, type WindowOrder } from '../store-rows.ts';

/** The sort the service is asked for, by a window's order. */
export const SORT_OF = {
  created: TaskSearchSortBy.CREATED_AT,
  ticket: TaskSearchSortBy.TICKET_ID,
  reverseTicket: TaskSearchSortBy.REVERSE_TICKET_ID,
} as const satisfies Record<WindowOrder, string>;

// A non-negative int64 as the service writes `numericId`: up to 19 digits.
const TICKET_ID = /^\d{1,19}$/;

// An edge: a ticket ID in 20 digits.
const EDGE = /^\d{20}$/;

/** A ticket ID as an edge: 20 digits, so that text order is number order; undefined for one that is no such integer. */
export function edgeOf(numericId: unknown): string | undefined {
  if (typeof numericId !== 'string' || !TICKET_ID.test(numericId)) return undefined;
  return numericId.padStart(20, '0');
}

/** Where one end of a burst stands: the edge its committed pages reached, and its query's last ID. */
export class BurstEnd {
  readonly #ascending: boolean;
  #edge: string | undefined;
  #last: string | undefined;
  // The ticket IDs this query has read: meeting the other end is reading its edge.
  readonly #read = new Set<string>();
  // How far the last page moved the edge.
  #stride = 0n;
  #alone = false;

  /** An end paging in `order` (`ticket` or `reverseTicket`) whose committed pages reached `edge`. */
  constructor(order: WindowOrder, edge: string | undefined) {
    this.#ascending = order === 'ticket';
    this.#edge = edge;
  }

  /**
   * The furthest ticket ID reached, every one short of it on a page this end has read. An ID is an
   * edge only once the next one came in order after it: a page's last ID, out of order, would show
   * only on the next page, after the other end had taken it for a meeting.
   */
  get edge(): string | undefined {
    return this.#edge;
  }

  /** True once the service showed it does not page by ticket ID: the end pages alone to its last page. */
  get alone(): boolean {
    return this.#alone;
  }

  /** The query starts again from its first page (its token was refused): its IDs repeat those read. */
  restart(): void {
    this.#last = undefined;
    this.#read.clear();
    this.#stride = 0n;
  }

  /**
   * Reads the ticket IDs of a page of the query, in the order received, of the tasks `inQuery`
   * keeps (one the service put on the page from outside the query says nothing of it); false (and
   * alone from then on) when one is out of this end's order (or repeats the one before) or no
   * integer, the first time.
   */
  read(
    views: readonly (TaskView | null | undefined)[],
    inQuery: (task: NonNullable<TaskView['task']>) => boolean,
  ): boolean {
    if (this.#alone) return true;
    const before = this.#edge;
    for (const view of views) {
      const task = view?.task;
      if (!task || !inQuery(task)) continue;
      const id = edgeOf(task.numericId);
      // A repeated ID is out of order too: tasks sharing one could be read by each end in an order
      // the other does not reverse, and one of them by neither.
      if (id === undefined || (this.#last !== undefined && !this.#passes(id, this.#last))) {
        this.#alone = true;
        return false;
      }
      if (this.#last !== undefined && (this.#edge === undefined || this.#passes(this.#last, this.#edge)))
        this.#edge = this.#last;
      this.#last = id;
      this.#read.add(id);
    }
    if (this.#edge !== undefined && before !== undefined) this.#stride = distance(this.#edge, before);
    return true;
  }

  /**
   * Whether the two ends have met: this query read `other`, the other end's edge (or the other
   * end found the burst covered). After a restart or a resume, what the query read before is not
   * known: it meets only on what it reads from then on, or pages to its last page.
   */
  met(other: string | undefined): boolean {
    return other !== undefined && (other === COVERED_EDGE || this.#read.has(other));
  }

  /**
   * Whether `other`, the other end's edge, is no further off than `pages` pages like this end's
   * last (in ticket IDs): so many pages of the two ends likely meet.
   */
  near(other: string | undefined, pages: number): boolean {
    // An end that paged to its last page has no ID for an edge: met() tells of it.
    if (other === undefined || !EDGE.test(other) || this.#edge === undefined || this.#stride === 0n)
      return false;
    return distance(this.#edge, other) <= BigInt(pages) * this.#stride;
  }

  #passes(edge: string, other: string): boolean {
    return this.#ascending ? edge > other : edge < other;
  }
}

/** How far apart two edges are, in ticket IDs. */
function distance(a: string, b: string): bigint {
  const d = BigInt(a) - BigInt(b);
  return d < 0n ? -d : d;
}
