/**
 * Checks of a caller's `AbortSignal`.
 *
 * @module
 */

/** A value as a message names it: its type, and a short JSON of a primitive; never an object's content. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object' || typeof value === 'function') return `a ${typeof value}`;
  return `${typeof value} ${String(JSON.stringify(value) ?? String(value)).slice(0, 40)}`;
}

/** What is wrong with a caller's `signal`, or undefined: none, or an `AbortSignal` (of any realm). */
export function signalProblem(signal: unknown): string | undefined {
  if (signal === undefined) return undefined;
  const candidate = signal as { aborted?: unknown; addEventListener?: unknown } | null;
  if (typeof candidate?.aborted === 'boolean' && typeof candidate.addEventListener === 'function')
    return undefined;
  return `signal must be an AbortSignal (an AbortController's signal, or AbortSignal.timeout(ms)); got ${describeValue(signal)}.`;
}
