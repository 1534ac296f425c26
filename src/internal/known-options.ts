/**
 * Options objects checked for keys no option has: in plain JavaScript a typo (`basUrl`,
 * `concurency`) would otherwise be ignored in silence, and the default used instead.
 *
 * @module
 */
import { closest } from './closest.ts';

/**
 * `keys` as the option names of `T`, checked at compile time to name every one of them: an option
 * added to `T` and not here is a type error naming it.
 */
export function optionKeys<T>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K &
      ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> }),
  ): readonly string[] => keys;
}

/**
 * What to tell of the first key of `options` that `known` does not name, with the closest known
 * one; undefined when every key is known (or `options` is no object: its own check says so).
 */
export function unknownOptionProblem(
  what: string,
  options: unknown,
  known: readonly string[],
): string | undefined {
  if (options === null || typeof options !== 'object') return undefined;
  const unknown = Object.keys(options).find((key) => !known.includes(key));
  if (unknown === undefined) return undefined;
  return `${what} has no option ${JSON.stringify(unknown)}: did you mean ${closest(unknown, known)}? Its options are ${known.join(', ')}.`;
}
