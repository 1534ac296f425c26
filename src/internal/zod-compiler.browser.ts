import type * as z from 'zod/mini';

/**
 * The browser build's stand-in for zod's schema compiler: none. The compiler adds 9.2 KiB gzipped to
 * a client bundle, while it saves about 1.5 ms per 100-view page, which a browser spends waiting on
 * the network anyway; browsers validate responses with zod's runtime parser, with the same results
 * and errors. Selected by the `browser` condition of the package's `#zod-compiler` import.
 *
 * @internal
 */
export const compile: ((schema: z.core.$ZodType) => z.core.$ZodType) | undefined = undefined;
