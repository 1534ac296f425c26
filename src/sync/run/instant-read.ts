/**
 * The tasks a window's committed pages read at the instant its cursor stands at.
 *
 * @module
 */
import type { TaskRow } from '../store.ts';
import { createdAt } from './page-scan.ts';

/**
 * The IDs of the tasks a window's committed pages read at its cursor's instant since the cursor
 * came there (a burst's, paged by tokens). A query started again there after its token was refused
 * leaves them out (`excludeIds`): a burst whose pages outlast the service's tokens still gets
 * further each time, where starting it over would read the same pages until the token died again.
 */
export class InstantRead {
  #at = Number.NaN;
  readonly #ids = new Set<string>();
  #refused = false;

  /** How many: a query that read more got further, though its cursor stayed. */
  get size(): number {
    return this.#ids.size;
  }

  /** Notes the tasks of a committed page, after which the cursor stands at `cursor`. */
  add(tasks: readonly TaskRow[], cursor: number): void {
    if (cursor !== this.#at) this.#ids.clear();
    this.#at = cursor;
    for (const row of tasks) if (createdAt(row) === cursor) this.#ids.add(row.id);
  }

  /** The IDs a query from `cursor` leaves out; undefined when none were read there, or once refused. */
  exclude(cursor: number): string[] | undefined {
    return !this.#refused && cursor === this.#at && this.#ids.size > 0 ? [...this.#ids] : undefined;
  }

  /** The service refused a query that left tasks out: queries started again read them again. */
  refuse(): void {
    this.#refused = true;
  }
}
