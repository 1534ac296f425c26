import type { Page } from './page.ts';

const NONE: unique symbol = Symbol('none');

/**
 * Iterates the items of pages, skipping `null`s, as `for await (const item of listing)` does.
 *
 * Hand-written rather than an async generator: an item already on the page is answered with a
 * settled promise, where a generator nested in another costs several promise ticks per `yield`
 * (more, a page, than checking the page: CONTRIBUTING, Benchmarks).
 * It keeps a generator's contract: calls to `next` made before the previous one settled are
 * answered in order, an error ends the iteration, and `return` closes the pages (aborting a
 * prefetched request).
 */
export class ItemIterator<P extends Page<Item>, Item> implements AsyncGenerator<Item, void, undefined> {
  readonly #pages: AsyncGenerator<P, void, undefined>;
  #list: readonly (Item | null)[] = [];
  #at = 0;
  #done = false;
  // The latest call still waiting for a page; later calls queue behind it. Never rejects.
  #pending: Promise<unknown> | undefined;
  // Inherited from %AsyncIteratorPrototype% (below) where the runtime has it: it calls `return`.
  declare [Symbol.asyncDispose]: () => Promise<void>;

  constructor(pages: AsyncGenerator<P, void, undefined>) {
    this.#pages = pages;
  }

  /** The next item on the current page, or NONE. */
  #take(): Item | typeof NONE {
    const list = this.#list;
    while (this.#at < list.length) {
      const item = list[this.#at++] as Item | null;
      if (item !== null) return item;
    }
    return NONE;
  }

  async #fetchNext(): Promise<IteratorResult<Item, void>> {
    for (;;) {
      const item = this.#take();
      if (item !== NONE) return { value: item, done: false };
      if (this.#done) return { value: undefined, done: true };
      // Let go of the finished page before waiting, so that it need not outlive the reading and
      // parsing of the next one.
      this.#list = [];
      let result: IteratorResult<P, void>;
      try {
        result = await this.#pages.next();
      } catch (error) {
        this.#done = true;
        throw error;
      }
      if (result.done) {
        this.#done = true;
      } else {
        this.#list = result.value.list ?? [];
        this.#at = 0;
      }
    }
  }

  /** Runs `step` after every earlier call has settled. */
  #queued<T>(step: () => Promise<T>): Promise<T> {
    const result = this.#pending ? this.#pending.then(step) : step();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#pending = settled;
    void settled.then(() => {
      if (this.#pending === settled) this.#pending = undefined;
    });
    return result;
  }

  next(): Promise<IteratorResult<Item, void>> {
    if (!this.#pending) {
      const item = this.#take();
      if (item !== NONE) return Promise.resolve({ value: item, done: false });
    }
    return this.#queued(() => this.#fetchNext());
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<Item, void>> {
    return this.#queued(async () => {
      this.#close();
      await this.#pages.return();
      return { value: await value, done: true };
    });
  }

  throw(error: unknown): Promise<IteratorResult<Item, void>> {
    return this.#queued(async () => {
      this.#close();
      // The caller's error is the one that counts, as when a `for await` body throws.
      await this.#pages.return().catch(() => {});
      throw error;
    });
  }

  #close(): void {
    this.#done = true;
    this.#list = [];
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

// Inherit what the runtime gives every async iterator, `Symbol.asyncDispose` (`await using`) where it
// exists, as an async generator would.
// An async generator object's prototype chain: its function's prototype, %AsyncGeneratorPrototype%,
// then %AsyncIteratorPrototype%.
const asyncGeneratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()));
Object.setPrototypeOf(ItemIterator.prototype, Object.getPrototypeOf(asyncGeneratorPrototype) as object);
