/** Shared helpers of the benchmarks: interleaved rounds, medians, the results table. */

/** Benchmarks run small (a CI smoke test) when BENCH_SMALL is set. */
export const SMALL = process.env.BENCH_SMALL === '1';

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** How {@link interleaved} runs each round. */
export interface Interleaving {
  /**
   * A first round of each, unrecorded: for short runs, where it measures the JIT compiler warming
   * up rather than the code.
   */
  readonly warmUp?: boolean;
  /**
   * Each recorded run follows an unrecorded run of the same code, so that it runs in the state a
   * program running only that code would be in. Measured on paging: the client's loop took 0.04-0.23
   * ms a broad page longer right after the bare loop than after itself (ten runs), the bare loop
   * moved by -0.06 to +0.07 ms; what carries over is the heap's state (the collector's sizing and
   * timing), not only the other loop's garbage. Each loop alone in its own process gave a ratio within
   * the noise of the primed one (0.929 against 0.918), where alternating runs gave 0.879.
   */
  readonly primed?: boolean;
}

/**
 * Runs `subject` and `reference` alternately for `rounds` rounds (so drift and noise hit both
 * alike) and returns the median of each; each run returns the figure it measured.
 */
export async function interleaved(
  rounds: number,
  subject: () => Promise<number> | number,
  reference: () => Promise<number> | number,
  { warmUp = false, primed = false }: Interleaving = {},
): Promise<{ subject: number; reference: number }> {
  const a: number[] = [];
  const b: number[] = [];
  if (warmUp && !SMALL) {
    await reference();
    await subject();
  }
  for (let i = 0; i < rounds; i++) {
    if (primed) await reference();
    b.push(await reference());
    if (primed) await subject();
    a.push(await subject());
  }
  return { subject: median(a), reference: median(b) };
}

/** Times `fn` over `iterations` calls after a warm-up, in ms per call. */
export async function msPerCall(fn: () => unknown, iterations: number): Promise<number> {
  for (let i = 0; i < Math.max(3, iterations / 10); i++) await fn();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return (performance.now() - started) / iterations;
}

/** One line of the results table. */
export interface Result {
  /** What was measured. */
  readonly name: string;
  /** Our figure. */
  readonly value: number;
  /** The reference figure, measured in the same run. */
  readonly reference?: number | undefined;
  /** Unit of value and reference. */
  readonly unit: string;
  /** value / reference (or the figure itself when there is no reference). */
  readonly ratio: number;
  /** The goal, in words. */
  readonly goal: string;
  /** Whether the goal is met. */
  readonly met: boolean;
}

/** A figure beside its reference: the ratio is ours / reference, and `meets` judges it against the goal. */
export function compared(
  name: string,
  measured: { readonly subject: number; readonly reference: number },
  unit: string,
  goal: string,
  meets: (ratio: number) => boolean,
): Result {
  const ratio = measured.subject / measured.reference;
  return {
    name,
    value: measured.subject,
    reference: measured.reference,
    unit,
    ratio,
    goal,
    met: meets(ratio),
  };
}

/** Prints the results as a table. */
export function printTable(results: readonly Result[]): void {
  const rows = results.map((r) => [
    r.name,
    `${round(r.value)} ${r.unit}`,
    r.reference === undefined ? '' : `${round(r.reference)} ${r.unit}`,
    r.reference === undefined ? '' : round(r.ratio, 2),
    r.goal,
    r.met ? 'met' : 'MISSED',
  ]);
  const header = ['benchmark', 'ours', 'reference', 'ratio', 'goal', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  for (const row of [header, ...rows])
    console.log(row.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join('  '));
}

function round(value: number, digits?: number): string {
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: digits ?? 0 });
}
