import { lazily } from './lazy.ts';

/**
 * ky, imported on the first request instead of with the SDK: code that only verifies webhooks or
 * reads schemas never loads it, and bundlers give it a chunk of its own that loads when the first
 * request is made. In Node, most of the cost is the fetch implementation that ky's feature checks
 * start at import time, which a request would start anyway.
 */
export type KyModule = typeof import('ky');

/** Loads ky once; a failed load (a browser chunk that could not be fetched) is tried again next time. */
export const loadKy: () => Promise<KyModule> = lazily(() => import('ky'));
