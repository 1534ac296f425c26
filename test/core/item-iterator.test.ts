import { describe, expect, it } from 'vitest';
import { ItemIterator } from '../../src/core/paging/item-iterator.ts';
import type { Page } from '../../src/core/paging/page.ts';

// The iterator `for await` gets from a listing, against the async generator it stands for, over the
// same pages: the calls a careless caller makes must end the same way.
type P = Page<string>;

async function* pages(log: string[], closeFails = false): AsyncGenerator<P, void, undefined> {
  try {
    yield { list: ['a', null, 'b'] };
    yield { list: [] };
    yield { list: ['c'] };
  } finally {
    log.push('closed');
    // A page source whose clean-up fails: what the test is about.
    // biome-ignore lint/correctness/noUnsafeFinally: deliberate
    if (closeFails) throw new Error('closing failed');
  }
}

async function* generator(
  source: AsyncGenerator<P, void, undefined>,
): AsyncGenerator<string, void, undefined> {
  for await (const page of source) for (const item of page.list ?? []) if (item !== null) yield item;
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: Error) => ({ error: error.message }),
  );

/** Runs `calls` on both and returns what each call gave and what the pages logged. */
async function both(
  calls: (it: AsyncGenerator<string, void, undefined>) => Promise<unknown>[],
  closeFails = false,
) {
  const run = async (
    make: (source: AsyncGenerator<P, void, undefined>) => AsyncGenerator<string, void, undefined>,
  ) => {
    const log: string[] = [];
    const results = await Promise.all(calls(make(pages(log, closeFails))).map(outcome));
    return { results, log };
  };
  return {
    actual: await run((source) => new ItemIterator<P, string>(source)),
    expected: await run(generator),
  };
}

describe('ItemIterator keeps an async generator’s contract', () => {
  const cases: [string, (it: AsyncGenerator<string, void, undefined>) => Promise<unknown>[], boolean?][] = [
    [
      'five next() at once, across an empty page and past the end',
      (it) => [1, 2, 3, 4, 5].map(() => it.next()),
    ],
    ['return() while a next() is pending, then next()', (it) => [it.next(), it.return(), it.next()]],
    ['return(value) answers with that value', (it) => [it.next(), it.return('v' as never)]],
    ['return() twice', (it) => [it.next(), it.return(), it.return()]],
    ['throw() mid-page, then next()', (it) => [it.next(), it.throw(new Error('caller gave up')), it.next()]],
    [
      'throw() rejects with the caller’s error even when closing the pages fails',
      (it) => [it.next(), it.throw(new Error('caller gave up'))],
      true,
    ],
  ];
  for (const [name, calls, closeFails] of cases) {
    it(name, async () => {
      const { actual, expected } = await both(calls, closeFails);
      expect(actual).toEqual(expected);
    });
  }
});
