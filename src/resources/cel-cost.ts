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

// A call of a comprehension macro, as the significant characters before its `(` end.
const MACRO = /\.(all|exists_one|exists|map|filter)$/;

/** Whether the pattern repeats at `i`: `+`, `*`, or `{n,}` / `{n,m}` (not `?`, nor an exact `{n}`). */
function repeatsAt(pattern: string, i: number): boolean {
  const c = pattern[i];
  if (c === '+' || c === '*') return true;
  const count = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : null;
  return count?.[2] !== undefined && (count[3] === '' || Number(count[3]) > 1);
}

/**
 * Whether a regular expression holds a repeated group that itself repeats or offers a choice
 * (`(a+)+`, `((a+))*`, `(a|aa)+`): the shape that backtracks exponentially on a near match.
 * Character classes and escapes are skipped.
 */
function backtracks(pattern: string): boolean {
  // One entry an open group: whether it repeats inside, or offers a choice.
  const groups: boolean[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[') {
      for (i += pattern[i + 1] === ']' ? 2 : 1; i < pattern.length && pattern[i] !== ']'; i++) {
        if (pattern[i] === '\\') i++;
      }
    } else if (c === '(') groups.push(false);
    else if (c === ')') {
      const inner = groups.pop() ?? false;
      const repeated = repeatsAt(pattern, i + 1);
      if (inner && repeated) return true;
      if ((inner || repeated) && groups.length > 0) groups[groups.length - 1] = true;
    } else if (groups.length > 0 && (c === '|' || repeatsAt(pattern, i))) groups[groups.length - 1] = true;
  }
  return false;
}

/** What the scan of a condition found: how deep its comprehensions nest, and its string literals. */
interface Scan {
  readonly depth: number;
  readonly strings: readonly string[];
}

/**
 * Scans `condition` past its comments (`// ...`), whitespace and string literals (quoted,
 * triple-quoted, raw), which may stand anywhere between a macro's name and its `(`.
 */
function scan(condition: string): Scan {
  const open: boolean[] = [];
  const strings: string[] = [];
  // The last significant characters: a macro is a call of one, whatever lies between.
  let recent = '';
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < condition.length; i++) {
    const c = condition[i] as string;
    if (c === '/' && condition[i + 1] === '/') {
      const end = condition.indexOf('\n', i);
      i = end < 0 ? condition.length : end;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (c === '"' || c === "'") {
      const raw = /[rR]/.test(condition[i - 1] ?? '');
      const quote = condition.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < condition.length && !condition.startsWith(quote, j))
        j += !raw && condition[j] === '\\' ? 2 : 1;
      strings.push(condition.slice(i + quote.length, j));
      i = j + quote.length - 1;
    } else if (c === '(') {
      const macro = MACRO.test(recent);
      open.push(macro);
      if (macro) deepest = Math.max(deepest, ++depth);
    } else if (c === ')' && open.pop()) depth--;
    recent = (recent + c).slice(-24);
  }
  return { depth: deepest, strings };
}

/**
 * Why `condition` is not previewed, or undefined: comprehensions nested deeper than
 * {@link MAX_COMPREHENSION_DEPTH}, a length over {@link MAX_CONDITION_LENGTH} for its nesting, or a
 * `matches()` whose pattern has the shape that backtracks exponentially. Comments and string
 * literals are skipped. A bound of common shapes, not of every expression: a pattern read from the
 * finding, or one that backtracks polynomially (`a*a*a*b`), is not seen.
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
  // Each literal, and all of them together (a pattern built with `+`).
  if (/\bmatches\b/.test(condition) && [...strings, strings.join('')].some(backtracks)) {
    return 'condition matches a regular expression with a repeated group that repeats or offers a choice inside (such as (a+)+ or (a|aa)*), which can take exponential time: the preview does not evaluate it (it runs in this process)';
  }
  return undefined;
}
