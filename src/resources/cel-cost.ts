/**
 * A bound on what a rule's CEL condition may cost to preview. Conditions come from the service, and
 * the preview evaluates them in the caller's process, synchronously: comprehensions nested in each
 * other multiply (`[...].all(x, [...].all(y, ...))`), so a condition of a few hundred characters
 * could hold the event loop for minutes.
 *
 * @module
 */

/** The longest condition previewed, in characters. */
export const MAX_CONDITION_LENGTH = 4_000;
/** The deepest nesting of comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) previewed. */
export const MAX_COMPREHENSION_DEPTH = 2;

const MACRO = /\.\s*(all|exists_one|exists|map|filter)\s*$/;

/**
 * Why `condition` is not previewed, or undefined: longer than {@link MAX_CONDITION_LENGTH}, or with
 * comprehensions nested deeper than {@link MAX_COMPREHENSION_DEPTH}. With both bounds, the work of
 * a condition is at most about the square of its length. Text in string literals is skipped.
 */
export function conditionCostProblem(condition: string): string | undefined {
  if (condition.length > MAX_CONDITION_LENGTH) {
    return `condition is ${condition.length} characters, over the ${MAX_CONDITION_LENGTH} the preview evaluates (it runs in this process)`;
  }
  // One entry a parenthesis open: whether it opened a comprehension.
  const open: boolean[] = [];
  let depth = 0;
  let deepest = 0;
  let quote: string | undefined;
  for (let i = 0; i < condition.length; i++) {
    const c = condition[i] as string;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '(') {
      const macro = MACRO.test(condition.slice(Math.max(0, i - 24), i));
      open.push(macro);
      if (macro) deepest = Math.max(deepest, ++depth);
    } else if (c === ')' && open.pop()) depth--;
  }
  return deepest > MAX_COMPREHENSION_DEPTH
    ? `condition nests ${deepest} comprehensions, deeper than the ${MAX_COMPREHENSION_DEPTH} the preview evaluates (each multiplies the work, and it runs in this process)`
    : undefined;
}
