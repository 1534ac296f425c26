/**
 * How a `SqliteSyncStore` reaches its copy's work (copy.ts): in a worker thread of its own, by
 * messages, or on the caller's thread, by calls. Both answer a call the same way, a failure to open
 * the copy included.
 *
 * @internal
 * @module
 */
import { Worker } from 'node:worker_threads';
import { StoreError } from '../../stores/store-error.ts';
import type { SyncStore } from '../store.ts';
import type { SqliteCopy } from './copy.ts';
import type { SqliteCopyOptions } from './options.ts';
import { fromWire, type ThreadAnswer } from './thread-messages.ts';

/** A method of the copy's work. */
export type CopyMethod =
  | keyof SyncStore
  | 'readRows'
  | 'readChanges'
  | 'pruneChanges'
  | 'hasCompletedRun'
  | 'status';

/** Calls the copy's work, wherever it runs. */
export interface CopyAccess {
  call<T>(method: CopyMethod, args: readonly unknown[]): Promise<T>;
  /** Whether a call was made: until then nothing was opened, and there is nothing to close. */
  readonly started: boolean;
  /** Closes the copy (one that never opened has nothing to close) and ends the access. */
  close(): Promise<void>;
}

// The worker thread's module: beside this one, as source (tests, `--import` of the sources) or as
// the built `sync-sqlite-thread.js` (an ES module, which a CommonJS build loads as well).
const THREAD = new URL(
  import.meta.url.endsWith('.ts') ? './thread.ts' : './sync-sqlite-thread.js',
  import.meta.url,
);

/** The copy's work in a worker thread, started on first use; it holds the process only while a call is under way. */
export class CopyThread implements CopyAccess {
  readonly #options: SqliteCopyOptions;
  #worker: Worker | undefined;
  #ended = false;
  #next = 0;
  readonly #pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void; readonly worker: Worker }
  >();

  constructor(options: SqliteCopyOptions) {
    this.#options = options;
  }

  get started(): boolean {
    return this.#worker !== undefined;
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(THREAD, { workerData: this.#options });
    worker.on('message', (answer: ThreadAnswer) => {
      const waiting = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      if (this.#pending.size === 0) worker.unref();
      if (answer.ok) waiting?.resolve(answer.value);
      else waiting?.reject(fromWire(answer.error));
    });
    // Only this thread's calls fail with it: a late 'exit' after an 'error' must not touch its successor's.
    const fail = (error: Error) => {
      for (const [id, waiting] of this.#pending) {
        if (waiting.worker !== worker) continue;
        this.#pending.delete(id);
        waiting.reject(error);
      }
      if (this.#worker === worker) this.#worker = undefined;
    };
    // Transient: the patient store tries the call again, on a new thread holding the copy as this one did.
    const ended = (why: string, cause?: unknown) =>
      fail(
        new StoreError(`The SQLite store's thread for ${this.#options.path} ${why}.`, {
          cause,
          transient: true,
        }),
      );
    worker.on('error', (error) => ended('failed', error));
    worker.on('exit', (code) => {
      if (!this.#ended) ended(`ended (exit code ${code})`);
    });
    this.#worker = worker;
    return worker;
  }

  call<T>(method: CopyMethod, args: readonly unknown[]): Promise<T> {
    const worker = this.#thread();
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, worker });
      worker.ref();
      worker.postMessage({ id, method, args });
    });
  }

  async close(): Promise<void> {
    try {
      if (this.#worker) await this.call('close', []);
    } finally {
      this.#ended = true;
      await this.#worker?.terminate();
    }
  }
}

/** The copy's work on the caller's thread, opened on first use; calls run one after another, in the order made. */
export class CopyHere implements CopyAccess {
  readonly #options: SqliteCopyOptions;
  // The copy, or the failure to open it: said on every call, as the thread says it.
  #copy: Promise<SqliteCopy> | undefined;
  // The calls made so far, settled or not: the next one (close among them) runs after them.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: SqliteCopyOptions) {
    this.#options = options;
  }

  get started(): boolean {
    return this.#copy !== undefined;
  }

  call<T>(method: CopyMethod, args: readonly unknown[]): Promise<T> {
    // The copy's modules (node:sqlite among them) load only when a store runs its work here.
    if (!this.#copy) {
      this.#copy = import('./copy.ts').then(({ SqliteCopy }) => new SqliteCopy(this.#options));
      // A failure to open is each call's answer, not the process's: it is handled here.
      this.#copy.catch(() => {});
    }
    const opened = this.#copy;
    const answer = this.#queue.then(async () => {
      const copy = (await opened) as unknown as Record<CopyMethod, (...a: readonly unknown[]) => Promise<T>>;
      // The work holds this thread (a commit waits for the disk): first, the request asked for just
      // before it (the next page, asked for ahead) goes out, which takes fetch more than one turn of the loop.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      return copy[method](...args);
    });
    this.#queue = answer.catch(() => {});
    return answer;
  }

  async close(): Promise<void> {
    await this.#queue;
    const copy = await this.#copy?.catch(() => undefined);
    await copy?.close();
  }
}
