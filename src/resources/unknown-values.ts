import { isUnlisted } from '../../schemas/open-enum.ts';
import type { Logger } from '../core/logger.ts';
import { closest } from '../internal/closest.ts';

/**
 * Warns about request values this SDK does not know, once per field and value. They are still sent
 * (the service may know values newer than this release), but in plain JavaScript a typo such as
 * `taskStates: ['OPEN']` would otherwise return nothing, silently. Values marked with `unlisted()`
 * were chosen on purpose and pass quietly.
 */
export class UnknownValueWarnings {
  readonly #logger: Logger;
  readonly #use: string;
  readonly #warned = new Set<string>();
  // A program that passes its own users' strings through could send endless distinct values.
  static readonly MAX_WARNED = 1_000;

  /** `use` says what happens to such a value: `sent` (a request), `used` (a local preview). */
  constructor(logger: Logger, use: 'sent' | 'used' = 'sent') {
    this.#logger = logger;
    this.#use = use;
  }

  /** Warns if `value` is neither one of `known` nor marked with `unlisted()`. */
  check(field: string, value: unknown, known: readonly string[]): void {
    if (typeof value !== 'string' || known.includes(value) || isUnlisted(value)) return;
    const key = `${field}\u0000${value}`;
    if (this.#warned.has(key) || this.#warned.size > UnknownValueWarnings.MAX_WARNED) return;
    this.#warned.add(key);
    if (this.#warned.size > UnknownValueWarnings.MAX_WARNED) {
      this.#logger.warn(
        `${UnknownValueWarnings.MAX_WARNED} different unknown request values so far; no more are logged.`,
      );
      return;
    }
    const shown = value.length > 100 ? `${value.slice(0, 100)}...` : value;
    // Edit distance costs length x candidates: a long value is no typo of a short enum value.
    const hint = value.length > 100 ? undefined : closest(value, known);
    const hatch = field === 'taskTypes' ? `unlistedTaskType('${shown}')` : `unlisted('${shown}')`;
    this.#logger.warn(
      `${field}: "${shown}" is not a value this SDK knows; it is ${this.#use} as given and may match nothing.` +
        `${hint ? ` Did you mean ${hint}?` : ''} If the service added it, pass ${hatch}.`,
      { field, value: shown, suggestion: hint },
    );
  }
}
