/**
 * `node:sqlite`, loaded when a store opens a file rather than when its module is imported: on a
 * Node without it the store says which Node it needs, where the import would fail with Node's own
 * error (or a store's thread would, over and over). SQLite's ExperimentalWarning, which Node prints
 * at that load, is left out: the SDK uses it on purpose, and the warning garbles a progress bar.
 *
 * @module
 */
import type * as Sqlite from 'node:sqlite';
import { ConfigurationError } from '../core/errors/errors.ts';
import { nodeFloorProblem } from '../internal/node-floor.ts';

let loaded: typeof Sqlite | undefined;

/** The `node:sqlite` module; a {@link ConfigurationError} naming the Node needed on an older one. */
export function nodeSqlite(what: string): typeof Sqlite {
  if (loaded) return loaded;
  const problem = nodeFloorProblem(what);
  if (problem) throw new ConfigurationError(problem);
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (/SQLite/i.test(String(text)) && JSON.stringify(rest).includes('ExperimentalWarning')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule?.('node:sqlite') as typeof Sqlite | undefined;
  } finally {
    process.emitWarning = emit;
  }
  if (!loaded)
    throw new ConfigurationError(
      `${what} needs node:sqlite, which this Node (${process.version}) lacks: upgrade Node.`,
    );
  return loaded;
}
