import type { Logger } from './logger.ts';

/**
 * Handlers for some of `Events`, one per event name: what a component's `hooks` option and a
 * call's `hooks` option take.
 *
 * @group Observability
 */
export type HookHandlers<Events> = {
  readonly [Name in keyof Events]?: ((event: Events[Name]) => void) | undefined;
};

/**
 * The hooks of one component (a client, a sender, an outbox): handlers added with
 * {@link Hooks.on} or the component's `hooks` option, told of each event in the order added. A
 * handler that throws, or an async one that rejects, is logged and ignored (not awaited): what it
 * does cannot change the component's work. An event nobody listens to is not even built, so unused
 * hooks cost a property read.
 *
 * @group Observability
 */
export class Hooks<Events> {
  // Keyed by any name, not `keyof Events`: a component's hooks then serve where fewer events are known.
  readonly #handlers = new Map<PropertyKey, Array<(event: never) => void>>();
  readonly #logger: Logger;

  /** @internal Made by the component, with the handlers of its `hooks` option. */
  constructor(logger: Logger, initial: HookHandlers<Events> | undefined) {
    this.#logger = logger;
    for (const name of Object.keys(initial ?? {}) as Array<keyof Events>) {
      const handler = initial?.[name];
      if (handler) this.on(name, handler);
    }
  }

  /** Calls `handler` with every `name` event from now on; returns the function that stops it. */
  on<Name extends keyof Events>(name: Name, handler: (event: Events[Name]) => void): () => void {
    if (typeof handler !== 'function') {
      throw new TypeError(`hooks.on('${String(name)}', handler): handler must be a function.`);
    }
    const list = [...(this.#handlers.get(name) ?? []), handler as (event: never) => void];
    this.#handlers.set(name, list);
    return () => {
      const now = this.#handlers.get(name)?.filter((h) => h !== handler) ?? [];
      if (now.length > 0) this.#handlers.set(name, now);
      else this.#handlers.delete(name);
    };
  }

  /** @internal Whether anyone listens to `name`, here or in `call`. */
  wants(name: keyof Events, call?: HookHandlers<Events>): boolean {
    return this.#handlers.has(name) || call?.[name] !== undefined;
  }

  /**
   * @internal Tells this component's handlers of `name`, then the call's. `event` is built only
   * when someone listens.
   */
  emit<Name extends keyof Events>(name: Name, event: () => Events[Name], call?: HookHandlers<Events>): void {
    const handlers = this.#handlers.get(name);
    const own = call?.[name];
    if (!handlers && !own) return;
    const built = event();
    for (const handler of handlers ?? []) this.#call(name, handler, built);
    if (own) this.#call(name, own, built);
  }

  #call<Name extends keyof Events>(name: Name, handler: (event: never) => void, event: Events[Name]): void {
    try {
      const returned: unknown = (handler as (event: Events[Name]) => unknown)(event);
      // An async handler's rejection is its throw: caught here, it cannot end the process as unhandled.
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') {
        (returned as PromiseLike<unknown>).then(undefined, (error: unknown) => this.#threw(name, error));
      }
    } catch (error) {
      this.#threw(name, error);
    }
  }

  #threw(name: keyof Events, error: unknown): void {
    this.#logger.warn(`a '${String(name)}' hook threw (${thrownText(error)}); ignored`);
  }
}

/**
 * What a handler threw, as text, whatever it was: an error's message, or the value itself; never
 * throwing (a Symbol cannot be put in a template, and a null-prototype object has no `toString`).
 */
function thrownText(thrown: unknown): string {
  try {
    const message = (thrown as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
    if (typeof thrown === 'symbol') return thrown.toString();
    return String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}
