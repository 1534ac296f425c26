import type { RequestIdentity, TransportEvents } from '../events.ts';
import type { HookHandlers, Hooks } from '../hooks.ts';
import { requestIdOf } from './request-id.ts';

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
  requestId?: string | undefined;
  settled: boolean;
}

/** What an {@link AttemptRecorder} reports to, for one request. */
export interface AttemptListeners {
  /** The request, as every event names it. */
  readonly identity: RequestIdentity;
  /** The caller's own report of each attempt (a sender's delivery history). */
  readonly report: ((report: AttemptReport) => void) | undefined;
  /** The component's hooks, and the call's. */
  readonly hooks: Hooks<TransportEvents>;
  readonly callHooks: HookHandlers<TransportEvents> | undefined;
  /** Attempts allowed. */
  readonly maxAttempts: number;
  readonly idempotent: boolean;
  /** The caller's signal: an attempt it cut short is `aborted`, not a timeout. */
  readonly signal: AbortSignal | undefined;
}

/**
 * The attempts of one request as they happen: the `request` hook as each starts, the `response`
 * hook when its answer is read, and the caller's report when it ends. An attempt still open when
 * the next begins, or when the request ends, was given up on by the transport's timer: a
 * `timeout` (an `aborted` when the caller's signal fired).
 */
export class AttemptRecorder {
  readonly #on: AttemptListeners;
  #open: OpenAttempt | undefined;
  #count = 0;
  #bytes = 0;

  constructor(listeners: AttemptListeners) {
    this.#on = listeners;
  }

  /** Starts the next attempt; one still open is settled first. */
  begin(): void {
    this.#giveUp();
    this.#count += 1;
    const attempt = this.#count;
    this.#open = { attempt, startedAt: Date.now(), started: performance.now(), settled: false };
    const { identity, maxAttempts, idempotent } = this.#on;
    this.#on.hooks.emit(
      'request',
      () => ({ ...identity, attempt, maxAttempts, idempotent }),
      this.#on.callHooks,
    );
  }

  /** The attempt under way, for the fetch that sends it to report on. */
  get current(): OpenAttempt | undefined {
    return this.#open;
  }

  /** The last answer's request ID, once one arrived. */
  get requestId(): string | undefined {
    return this.#open?.requestId;
  }

  /** Bytes of body the last attempt read. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The answer's status line and headers arrived for `open` (its body may still be read). */
  answered(open: OpenAttempt | undefined, answer: Response): void {
    if (!open) return;
    open.status = answer.status;
    open.requestId = requestIdOf(answer.headers);
  }

  /**
   * `open` ended: with its whole answer (`bytes` of body read), or failed (`attemptSignal` tells a
   * timeout from a break).
   */
  settle(open: OpenAttempt | undefined, failure?: { readonly attemptSignal: AbortSignal }, bytes = 0): void {
    if (!open || open.settled) return;
    let error: AttemptReport['error'];
    if (failure) {
      if (this.#on.signal?.aborted) error = 'aborted';
      else error = failure.attemptSignal.aborted ? 'timeout' : 'network';
    }
    this.#emit(open, error, bytes);
  }

  /** The request is over: an attempt still open was given up on. */
  end(): void {
    this.#giveUp();
  }

  #giveUp(): void {
    const open = this.#open;
    if (open && !open.settled) this.#emit(open, this.#on.signal?.aborted ? 'aborted' : 'timeout', 0);
  }

  #emit(open: OpenAttempt, error: AttemptReport['error'], bytes: number): void {
    open.settled = true;
    this.#bytes = bytes;
    const durationMs = performance.now() - open.started;
    const { identity, report, hooks, callHooks } = this.#on;
    const { status } = open;
    if (error === undefined && status !== undefined) {
      hooks.emit(
        'response',
        () => ({ ...identity, attempt: open.attempt, status, requestId: open.requestId, durationMs, bytes }),
        callHooks,
      );
    }
    report?.({
      attempt: open.attempt,
      method: identity.method,
      path: identity.path,
      startedAt: open.startedAt,
      durationMs,
      ...(status === undefined ? {} : { status }),
      ...(error === undefined ? {} : { error }),
    });
  }
}
