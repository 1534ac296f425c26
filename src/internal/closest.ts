/** Edit distance (insertions, deletions, substitutions) between two strings. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The longest prefix every value shares, cut after its last `_` (`TASK_STATE_`). */
function sharedPrefix(values: readonly string[]): string {
  let prefix = values[0] ?? '';
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.slice(0, prefix.lastIndexOf('_') + 1);
}

/**
 * The known value closest to `value`, for a "did you mean" hint: compared case-insensitively, both
 * whole and without the prefix the known values share, so `OPEN` finds `TASK_STATE_OPEN`.
 */
export function closest(value: string, known: readonly string[]): string | undefined {
  const prefix = sharedPrefix(known);
  const wanted = value.toUpperCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const upper = candidate.toUpperCase();
    const short = upper.slice(prefix.length);
    const d = Math.min(distance(wanted, upper), distance(wanted, short));
    // Ties go to the candidate that starts like the value (`app` -> `app_id`, not `*`).
    const score = d - (short.startsWith(wanted) || upper.startsWith(wanted) ? 0.5 : 0);
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return best;
}
