import { isUnlisted } from '../../schemas/open-enum.ts';
import { closest } from '../core/closest.ts';
import type { Logger } from '../core/logger.ts';

/**
 * Warns about request values this SDK does not know, once per field and value. They are still sent
 * (the service may know values newer than this release), but in plain JavaScript a typo such as
 * `taskStates: ['OPEN']` would otherwise return nothing, silently. Values marked with `unlisted()`
 * were chosen on purpose and pass quietly.
 */
export class UnknownValueWarnings {
  readonly #logger: Logger;
  readonly #warned = new Set<string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Warns if `value` is neither one of `known` nor marked with `unlisted()`. */
  check(field: string, value: unknown, known: readonly string[]): void {
    if (typeof value !== 'string' || known.includes(value) || isUnlisted(value)) return;
    const key = `${field}\u0000${value}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    const hint = closest(value, known);
    this.#logger.warn(
      `${field}: "${value}" is not a value this SDK knows; it is sent as given and may match nothing.` +
        `${hint ? ` Did you mean ${hint}?` : ''} If the service added it, pass unlisted('${value}').`,
      { field, value, suggestion: hint },
    );
  }
}
