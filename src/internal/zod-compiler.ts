/**
 * zod's schema compiler, alone, so that it can be loaded lazily as its own chunk: importing zod's
 * core namespace dynamically would make bundlers keep every export of it.
 *
 * @internal
 * @module
 */
export { compile } from 'zod/mini';
