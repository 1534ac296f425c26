/**
 * Where a reader of `idgov changes --kind` goes on from, counted by what it was handed.
 *
 * @module
 */

/** A line written and not yet taken by the OS, or a position read through after the lines before it. */
interface Mark {
  readonly seq: number;
  readonly line: boolean;
}

/**
 * The position past every line the OS has taken from the process, and past the changes of other
 * kinds read before the next line it has not: a line still in the process's buffer is dropped when a
 * stop ends the process, and a position past it would skip it; a position held at the last batch
 * read through would hand the lines after it out twice.
 */
export class DeliveredPosition {
  #seq: number;
  // In write order. The OS takes lines in that order, so the first is always a line.
  readonly #waiting: Mark[] = [];
  #broken = false;
  readonly #settle: Array<() => void> = [];

  constructor(since: number) {
    this.#seq = since;
  }

  /** Where to go on from. */
  get seq(): number {
    return this.#seq;
  }

  /** Whether a line written is not yet taken (nor failed). */
  get inFlight(): boolean {
    return this.#waiting.length > 0;
  }

  /** The feed was read through `seq`: reached once every line written before it is taken. */
  readThrough(seq: number): void {
    if (this.#broken) return;
    if (this.#waiting.length === 0) this.#seq = Math.max(this.#seq, seq);
    else this.#waiting.push({ seq, line: false });
  }

  /** A line of change `seq` is written: the callback its write calls once the OS has taken it, or failed. */
  written(seq: number): (error?: Error | null) => void {
    this.#waiting.push({ seq, line: true });
    return (error) => (error ? this.#break() : this.#taken());
  }

  /** Resolves once every line written is taken, or a write failed (what was taken then stands). */
  settled(): Promise<void> {
    if (this.#waiting.length === 0 || this.#broken) return Promise.resolve();
    return new Promise((resolve) => {
      this.#settle.push(resolve);
    });
  }

  #taken(): void {
    if (this.#broken) return;
    const line = this.#waiting.shift();
    if (line) this.#seq = Math.max(this.#seq, line.seq);
    for (let next = this.#waiting[0]; next && !next.line; next = this.#waiting[0]) {
      this.#seq = Math.max(this.#seq, next.seq);
      this.#waiting.shift();
    }
    if (this.#waiting.length === 0) this.#settled();
  }

  // A write failed (the reader gone): no later line can be taken either.
  #break(): void {
    this.#broken = true;
    this.#waiting.length = 0;
    this.#settled();
  }

  #settled(): void {
    for (const resolve of this.#settle.splice(0)) resolve();
  }
}
