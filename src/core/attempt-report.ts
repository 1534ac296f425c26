import type { Logger } from './logger.ts';

/**
 * One attempt of a request, as the transport saw it: reported once per attempt, retries included,
 * when the attempt ends.
 *
 * @group Client
 */
export interface AttemptReport {
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number;
  /** The request's method. */
  readonly method: 'GET' | 'POST';
  /** The URL's path, without its query. */
  readonly path: string;
  /** When the attempt started, in ms since the epoch. */
  readonly startedAt: number;
  /** How long the attempt took, from sending to the last byte read (or to its failure), in ms. */
  readonly durationMs: number;
  /** The HTTP status, when an answer came. */
  readonly status?: number | undefined;
  /**
   * Why no whole answer came: `timeout` (the attempt's time ran out), `network` (the connection
   * failed or broke, before or while the answer was read) or `aborted` (the caller's signal).
   * Without an answer the service may still have received and acted on the request.
   */
  readonly error?: 'timeout' | 'network' | 'aborted' | undefined;
}

interface OpenAttempt {
  readonly attempt: number;
  readonly startedAt: number;
  readonly started: number;
  status?: number;
  settled: boolean;
}

/**
 * The attempts of one request as they happen, each reported once when it ends. An attempt still
 * open when the next begins, or when the request ends, was given up on by the transport's timer:
 * a `timeout` (an `aborted` when the caller's signal fired).
 */
export class AttemptRecorder {
  readonly #report: ((report: AttemptReport) => void) | undefined;
  readonly #method: 'GET' | 'POST';
  readonly #path: string;
  readonly #signal: AbortSignal | undefined;
  readonly #logger: Logger;
  #open: OpenAttempt | undefined;
  #count = 0;

  constructor(
    request: {
      readonly method: 'GET' | 'POST';
      readonly path: string;
      readonly signal?: AbortSignal | undefined;
    },
    report: ((report: AttemptReport) => void) | undefined,
    logger: Logger,
  ) {
    this.#method = request.method;
    this.#path = request.path;
    this.#signal = request.signal;
    this.#report = report;
    this.#logger = logger;
  }

  /** Starts the next attempt; one still open is settled first. */
  begin(): void {
    this.#giveUp();
    this.#count += 1;
    this.#open = { attempt: this.#count, startedAt: Date.now(), started: performance.now(), settled: false };
  }

  /** The attempt under way, for the fetch that sends it to report on. */
  get current(): OpenAttempt | undefined {
    return this.#open;
  }

  /** The answer's status arrived for `open` (its body may still be read). */
  answered(open: OpenAttempt | undefined, status: number): void {
    if (open) open.status = status;
  }

  /** `open` ended: with its whole answer, or failed (`attemptSignal` tells a timeout from a break). */
  settle(open: OpenAttempt | undefined, failure?: { readonly attemptSignal: AbortSignal }): void {
    if (!open || open.settled) return;
    let error: AttemptReport['error'];
    if (failure) {
      if (this.#signal?.aborted) error = 'aborted';
      else error = failure.attemptSignal.aborted ? 'timeout' : 'network';
    }
    this.#emit(open, error);
  }

  /** The request is over: an attempt still open was given up on. */
  end(): void {
    this.#giveUp();
  }

  #giveUp(): void {
    const open = this.#open;
    if (open && !open.settled) this.#emit(open, this.#signal?.aborted ? 'aborted' : 'timeout');
  }

  #emit(open: OpenAttempt, error: AttemptReport['error']): void {
    open.settled = true;
    if (!this.#report) return;
    const report: AttemptReport = {
      attempt: open.attempt,
      method: this.#method,
      path: this.#path,
      startedAt: open.startedAt,
      durationMs: performance.now() - open.started,
      ...(open.status === undefined ? {} : { status: open.status }),
      ...(error === undefined ? {} : { error }),
    };
    try {
      this.#report(report);
    } catch (thrown) {
      // What the caller does with a report must not change the request's outcome.
      this.#logger.warn(`an attempt report handler threw (${(thrown as Error)?.message ?? thrown}); ignored`);
    }
  }
}
