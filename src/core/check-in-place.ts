import type * as z from 'zod/mini';
import { lazily } from './lazy.ts';

/**
 * Tells whether a value parsed by `JSON.parse` matches a response schema, without copying it: the
 * value itself becomes the result. Accepts exactly what the schema accepts; the only write is the
 * `$kind` discriminator of "exactly one variant" objects, which the schema's own parse adds too.
 */
export type InPlaceCheck = (value: unknown) => boolean;

// Why not zod's parse: it builds a new object for every object of a page, free-form ones included
// (`data`, annotations, `expanded`), and that copy was most of the client's paging cost. The checks
// are generated from the schemas (scripts/generate-checks.ts says why generated, and how); zod stays
// the reference: a value that fails its check is parsed by zod for the exact error.
//
// They load with the first request, as ky does (3.5 KiB gzipped that an import alone need not pay):
// the client starts loading them as it sends, and they are in by the time an answer is parsed.

let checks: ReadonlyMap<object, InPlaceCheck> | undefined;

/**
 * Loads the generated checks, once; until they are in (or if they cannot load, a browser chunk not
 * served), responses are parsed by zod, with the same result, only slower.
 */
export const loadInPlaceChecks: () => Promise<void> = lazily(async () => {
  checks = (await import('../../schemas/checks.generated.ts')).IN_PLACE_CHECKS;
});

// How long an answer in hand waits for the checks: their chunk loads while the request is out and
// is in long before; one that stalls (a browser bundle served badly) must not hold answers.
const PATIENCE_MS = 1_000;

/**
 * Settles when the checks are in, failed to load, `signal` aborts or 1 s has passed, whichever is
 * first; after that, a response parses with whatever is there (zod when the checks are not).
 */
export function inPlaceChecksReady(signal?: AbortSignal): Promise<void> {
  if (checks) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, PATIENCE_MS);
    signal?.addEventListener('abort', done, { once: true });
    loadInPlaceChecks().then(done, done);
  });
}

/**
 * The in-place check of a response schema; `undefined` for a schema that has none (a request
 * schema, or one using something only zod can run, such as a refinement) and before the checks
 * loaded, when zod parses instead.
 */
export function inPlaceCheck(schema: z.core.$ZodType): InPlaceCheck | undefined {
  return checks?.get(schema);
}
