import { Awaitable } from './awaitable.ts';
/**
 * What a successful answer was, besides its body: for logging, support tickets and rate budgets.
 *
 * @group Client
 */
export interface ResponseInfo {
  /** HTTP status (2xx). */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The service's request ID (`x-request-id` or `request-id`), to quote to its support. */
  readonly requestId: string | undefined;
  /** Attempts made, 1 when the first one succeeded. */
  readonly attempts: number;
  /** Bytes of the answer's body. */
  readonly bytes: number;
  /** From the first attempt to the answer's last byte, retries and waits included, in ms. */
  readonly durationMs: number;
}

/**
 * Data and the answer it came from, as {@link APIPromise.withResponse} and
 * `PagePromise.withResponse` give them.
 *
 * @group Client
 */
export interface WithResponse<T> {
  /** What awaiting the call gives. */
  readonly data: T;
  /** Status, headers and request ID of the answer. */
  readonly response: ResponseInfo;
}

/** The {@link ResponseInfo} of an answer. */
export function responseInfo(answer: ResponseInfo): ResponseInfo {
  const { status, headers, requestId, attempts, bytes, durationMs } = answer;
  return { status, headers, requestId, attempts, bytes, durationMs };
}

/**
 * The result of a single call: `await` it for the data, or call {@link APIPromise.withResponse}
 * for the data with the answer's status, headers and request ID. The request starts at once, as
 * with any promise.
 *
 * @example
 * const { data: rule, response } = await client.findingRules.get('rule-1').withResponse();
 * console.log(rule?.displayName, response.status, response.requestId);
 *
 * @group Client
 */
export class APIPromise<T> extends Awaitable<T> {
  readonly #result: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  /** @internal Made by the client; users get one from a call. */
  constructor(result: Promise<WithResponse<T>>) {
    super();
    this.#result = result;
  }

  /** @internal The same answer with its data transformed (a resource unwrapping its envelope). */
  map<U>(transform: (data: T) => U): APIPromise<U> {
    return new APIPromise(this.#result.then(({ data, response }) => ({ data: transform(data), response })));
  }

  /** The data and the answer's status, headers and request ID. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  /** Makes an APIPromise usable wherever a `Promise` of its data is expected. */
  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }

  /** @internal */
  protected settled(): Promise<T> {
    this.#data ??= this.#result.then(({ data }) => data);
    return this.#data;
  }
}
