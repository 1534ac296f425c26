/**
 * A bound on what a rule's CEL condition may cost to preview. Conditions come from the service, and
 * the preview evaluates them in the caller's process, synchronously: comprehensions nested in each
 * other multiply (`[...].all(x, [...].all(y, ...))`), and a regular expression with nested
 * quantifiers (`matches('^(a+)+$')`) backtracks exponentially, so a condition of a few hundred
 * characters could hold the event loop for minutes.
 *
 * @module
 */

/** The longest condition previewed, in characters, by how deep its comprehensions nest (none, one, two). */
export const MAX_CONDITION_LENGTH: readonly number[] = [65_536, 16_000, 1_000];
/** The deepest nesting of comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) previewed. */
export const MAX_COMPREHENSION_DEPTH = MAX_CONDITION_LENGTH.length - 1;

const MACRO = /\.\s*(all|exists_one|exists|map|filter)\s*$/;
// A group that holds a quantifier and is itself quantified: `(a+)+`, `(a|aa)*`-like backtracking.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d+,)/;

/** What the scan of a condition found: how deep its comprehensions nest, and its string literals. */
interface Scan {
  readonly depth: number;
  readonly strings: readonly string[];
}

/** Scans `condition` past its comments (`// ...`) and string literals (quoted, triple-quoted, raw). */
function scan(condition: string): Scan {
  const open: boolean[] = [];
  const strings: string[] = [];
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < condition.length; i++) {
    const c = condition[i] as string;
    if (c === '/' && condition[i + 1] === '/') {
      const end = condition.indexOf('\n', i);
      i = end < 0 ? condition.length : end;
    } else if (c === '"' || c === "'") {
      const raw = /[rR]/.test(condition[i - 1] ?? '');
      const quote = condition.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < condition.length && !condition.startsWith(quote, j))
        j += !raw && condition[j] === '\\' ? 2 : 1;
      strings.push(condition.slice(i + quote.length, j));
      i = j + quote.length - 1;
    } else if (c === '(') {
      const macro = MACRO.test(condition.slice(Math.max(0, i - 24), i));
      open.push(macro);
      if (macro) deepest = Math.max(deepest, ++depth);
    } else if (c === ')' && open.pop()) depth--;
  }
  return { depth: deepest, strings };
}

/**
 * Why `condition` is not previewed, or undefined: comprehensions nested deeper than
 * {@link MAX_COMPREHENSION_DEPTH}, a length over {@link MAX_CONDITION_LENGTH} for its nesting, or a
 * `matches()` whose pattern nests quantifiers. Comments and string literals are skipped.
 */
export function conditionCostProblem(condition: string): string | undefined {
  const { depth, strings } = scan(condition);
  if (depth > MAX_COMPREHENSION_DEPTH) {
    return `condition nests ${depth} comprehensions, deeper than the ${MAX_COMPREHENSION_DEPTH} the preview evaluates (each multiplies the work, and it runs in this process)`;
  }
  const longest = MAX_CONDITION_LENGTH[depth] as number;
  if (condition.length > longest) {
    return `condition is ${condition.length} characters, over the ${longest} the preview evaluates with comprehensions nested ${depth} deep (it runs in this process)`;
  }
  if (/\bmatches\s*\(/.test(condition) && strings.some((text) => NESTED_QUANTIFIER.test(text))) {
    return 'condition matches a regular expression that nests quantifiers (such as (a+)+), which can take exponential time: the preview does not evaluate it (it runs in this process)';
  }
  return undefined;
}
