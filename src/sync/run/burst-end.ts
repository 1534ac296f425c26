/**
 * One end of a burst paged from both ends. Tasks created at one instant can only be paged with
 * tokens, a page at a time; two cursors page such a burst at once, one by ascending ticket ID and
 * one by descending, and the window is done once the IDs their committed pages reached cross. That
 * needs the service to page by `numericId` (an int64), as its ticket order: an end that finds an ID
 * out of that order, or one that is not such an integer, says so, and pages on alone to its last page.
 *
 * @module
 */
import { TaskSearchSortBy } from '../../../schemas/enums.ts';
import type { TaskView } from '../../../schemas/task-search.ts';
import type { WindowOrder } from '../store.ts';

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
  // How far the last page's ticket IDs reached past the page before it.
  #stride = 0n;
  #alone = false;

  /** An end paging in `order` (`ticket` or `reverseTicket`) whose committed pages reached `edge`. */
  constructor(order: WindowOrder, edge: string | undefined) {
    this.#ascending = order === 'ticket';
    this.#edge = edge;
  }

  /** The furthest ticket ID reached: every one short of it is on a page this end has read. */
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
    this.#stride = 0n;
  }

  /**
   * Reads the ticket IDs of a page of the query, in the order received; false (and alone from
   * then on) when one is out of this end's order or no integer, the first time.
   */
  read(views: readonly (TaskView | null | undefined)[]): boolean {
    if (this.#alone) return true;
    const before = this.#last;
    for (const view of views) {
      if (!view?.task) continue;
      const id = edgeOf(view.task.numericId);
      if (id === undefined || (this.#last !== undefined && this.#passes(this.#last, id))) {
        this.#alone = true;
        return false;
      }
      this.#last = id;
    }
    const last = this.#last;
    if (last !== undefined && before !== undefined) this.#stride = distance(last, before);
    if (last !== undefined && (this.#edge === undefined || this.#passes(last, this.#edge))) this.#edge = last;
    return true;
  }

  /** Whether this end's edge has passed `other`, the other end's: the two have met. */
  met(other: string | undefined): boolean {
    return other !== undefined && this.#edge !== undefined && this.#passes(this.#edge, other);
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
