import type * as z from 'zod/mini';

/**
 * The browser build's stand-in for zod's schema compiler: none. The compiler adds 9.2 KiB gzipped to
 * a client bundle to save about 1.5 ms per 100-view page, and it generates code with `new Function`,
 * which strict Content Security Policies refuse; zod/mini's runtime parser generates none. Browsers
 * validate with it, with the same results and errors. Selected by the `browser` condition of the
 * package's `#zod-compiler` import.
 *
 * @internal
 */
export const compile: ((schema: z.core.$ZodType) => z.core.$ZodType) | undefined = undefined;
