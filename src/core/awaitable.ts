/**
 * What makes a lazy call awaitable like a `Promise`: `then`, `catch` and `finally`, each on the
 * promise the subclass makes on first use (an API call's data, a listing's first page). An
 * `await` starts the work; building the object does not.
 *
 * @group Client
 */
export abstract class Awaitable<T> implements PromiseLike<T> {
  /** @internal The promise `then`, `catch` and `finally` act on, made once on first use. */
  protected abstract settled(): Promise<T>;

  /** Resolves with the value, like a `Promise`. */
  // biome-ignore lint/suspicious/noThenProperty: awaitable by design.
  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.settled().then(onFulfilled, onRejected);
  }

  /** Handles a failure, like `Promise.prototype.catch`. */
  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.settled().catch(onRejected);
  }

  /** Runs `onFinally` once it settles, like `Promise.prototype.finally`. */
  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.settled().finally(onFinally);
  }
}
