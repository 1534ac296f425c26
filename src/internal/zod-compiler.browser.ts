import type * as z from 'zod/mini';

/**
 * The browser build's stand-in for zod's schema compiler: none. The compiler is 9.7 KiB gzipped and
 * generates code with `new Function`, which strict Content Security Policies refuse (and report);
 * browsers validate responses with zod's runtime parser instead, with the same results and errors.
 * Selected by the `browser` condition of the package's `#zod-compiler` import.
 *
 * @internal
 */
export const compile: ((schema: z.core.$ZodType) => z.core.$ZodType) | undefined = undefined;
