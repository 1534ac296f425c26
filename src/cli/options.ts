/**
 * What the commands of `idgov` take from their options and check alike: the store (`--db` or
 * `--postgres`), dates, task states and types.
 *
 * @module
 */
import { InvalidArgumentError } from 'commander';
import { TaskState } from '../../schemas/enums.ts';
import { KNOWN_TASK_TYPE_KINDS } from '../../schemas/request-values.ts';
import type { TaskTypeFilter } from '../../schemas/task-search.ts';
import { UsageError } from './usage.ts';

/**
 * The copy the options name: `--db` (SQLite) or `--postgres` (with `--table`), exactly one, and no
 * option that does not apply to it.
 */
export function checkCopy(options: { db?: string; postgres?: string; table?: string }, noun = 'copy'): void {
  if ((options.db === undefined) === (options.postgres === undefined)) {
    throw new UsageError(`give the ${noun} as --db <file> (SQLite) or --postgres <url>, one of them.`);
  }
  if (options.postgres !== undefined && !/^postgres(?:ql)?:\/\//i.test(options.postgres)) {
    throw new UsageError(
      '--postgres takes a connection URL, e.g. postgres://sync@db.example:5432/reports (this is not one; not shown: it may hold a password).',
    );
  }
  if (options.db !== undefined) {
    checkFile(options.db);
    if (options.table !== undefined) {
      throw new UsageError(
        '--table names PostgreSQL tables: drop it, or give --postgres <url> instead of --db.',
      );
    }
  }
}

/**
 * Refuses a `--db` that is no file name: empty, or a URL (a PostgreSQL one given to the wrong
 * option), which is not quoted back, as it may hold a password.
 */
function checkFile(db: string): void {
  if (db.trim() === '')
    throw new UsageError('--db must name the SQLite file of the copy (got an empty path).');
  if (/^file:/i.test(db)) {
    throw new UsageError('--db takes a file path: give the path itself, not a file: URI.');
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) {
    throw new UsageError(
      '--db takes a SQLite file, and this is a URL (not shown: it may hold a password): for PostgreSQL, use --postgres <url>.',
    );
  }
}

/** The task states this SDK knows, as the copy stores them and a search takes them. */
export type KnownTaskState = (typeof TaskState)[keyof typeof TaskState];

/** A task state as an option names it (`open`, `TASK_STATE_OPEN`, any case); a usage error for one this SDK does not know. */
export function taskState(value: string): KnownTaskState {
  const upper = value.toUpperCase();
  const state = (upper.startsWith('TASK_STATE_') ? upper : `TASK_STATE_${upper}`) as KnownTaskState;
  const known = Object.values(TaskState) as string[];
  if (!known.includes(state)) {
    throw new UsageError(
      `--state: no task state "${value}"; the states are ${known.map((s) => s.replace('TASK_STATE_', '').toLowerCase()).join(', ')}.`,
    );
  }
  return state;
}

/**
 * A task type the option `flag` (`--task-type`, `--type`) names, as a filter takes it: `grant` is
 * `{ grant: {} }`.
 */
export function taskTypeFilter(flag: string): (kind: string) => TaskTypeFilter {
  return (kind) => {
    const known = KNOWN_TASK_TYPE_KINDS.find((k) => k === kind.toLowerCase());
    if (known) return { [known]: {} } as TaskTypeFilter;
    throw new UsageError(
      `${flag}: no task type "${kind}"; the types are ${KNOWN_TASK_TYPE_KINDS.join(', ')}.`,
    );
  };
}

// A day (read as UTC midnight), or a time with its zone: what a shell user writes, read one way
// only (`Date.parse` takes "Nov 1" as 2001 and a time without a zone as the machine's, and rolls
// 2026-02-30 over to March 2, and 24:00 to the next day).
const DATE_FORM = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** A date an option names, as Unix ms; commander's usage error for anything but a day or a time with its zone. */
export function date(value: string): number {
  if (DATE_FORM.test(value) && !realDay(value)) {
    throw new InvalidArgumentError(`no such day or time: "${value}" (a day of its month, hours 00 to 23).`);
  }
  const ms = DATE_FORM.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError(
      `a day or a time with its zone, e.g. 2026-11-01 or 2026-11-01T12:00:00Z (got "${value}").`,
    );
  }
  return ms;
}

/** Whether the day of `value` (YYYY-MM-DD...) is in its month, and its hour a clock's (not 24). */
function realDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && !value.startsWith('24', 11);
}

/** `word` as a shell takes it back, for a command a message suggests: quoted unless plain path characters. */
export function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `text` from a service, safe to print on a terminal: control characters (escape sequences) shown as `?`. */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, '?');
}
