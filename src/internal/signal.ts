/**
 * Checks of a caller's `AbortSignal`.
 *
 * @module
 */

import { describeValue } from './values.ts';

/**
 * What is wrong with a caller's `signal`, or undefined: none (`undefined` or `null`), or an
 * `AbortSignal` of this runtime. One of another realm or a polyfill (jsdom's, an iframe's) is named
 * as such: the runtime's fetch refuses it, which would read as a network failure.
 */
export function signalProblem(signal: unknown): string | undefined {
  if (signal === undefined || signal === null) return undefined;
  if (typeof AbortSignal === 'function' && signal instanceof AbortSignal) return undefined;
  const candidate = signal as { aborted?: unknown; addEventListener?: unknown };
  if (typeof candidate.aborted === 'boolean' && typeof candidate.addEventListener === 'function') {
    return "signal is an AbortSignal of another realm or a polyfill (jsdom's, an iframe's), which this runtime's fetch refuses: pass one made here (new AbortController().signal), aborted from yours if need be.";
  }
  return `signal must be an AbortSignal (an AbortController's signal, or AbortSignal.timeout(ms)); got ${describeValue(signal)}.`;
}
