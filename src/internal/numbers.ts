/**
 * Why `value` is not a whole number from `min` to `max`, or undefined when it is (or is absent):
 * the problem alone, so that each caller raises the error class its input deserves (a
 * `ConfigurationError` for an option, a `RequestValidationError` for a call's argument).
 *
 * @example `timeout ${wholeNumberProblem(0, 1)}` reads "timeout must be a positive integer (got 0)".
 */
export function wholeNumberProblem(
  value: unknown,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return undefined;
  const kind =
    min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : `a whole number from ${min}`;
  const bound = max === Number.MAX_SAFE_INTEGER ? '' : ` no larger than ${max}`;
  const got = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return `must be ${kind}${bound} (got ${got})`;
}
