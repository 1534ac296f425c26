/**
 * The oldest Node the server-side parts run on (the CLI, the SQLite stores): `node:sqlite` without
 * a flag, and commander, came with 22.13 (and with 23.4 on the 23 line). Stated once here;
 * `engines` in package.json says the same.
 *
 * @module
 */

/** The oldest Node the CLI and the SQLite stores run on. */
export const NODE_FLOOR = '22.13.0';

// The versions with node:sqlite unflagged: 22.13 and later on 22, 23.4 and later on 23, any after.
function unflaggedSqlite(major: number, minor: number): boolean {
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

/**
 * What to tell when this runtime cannot run `what` (a command, a store): a Node older than
 * {@link NODE_FLOOR}, or Bun or Deno (no `node:sqlite`), named as what they are; undefined on a
 * Node as new, and where there is no Node at all (a browser).
 */
export function nodeFloorProblem(what: string): string | undefined {
  const versions = globalThis.process?.versions;
  const found = versions?.node;
  if (typeof found !== 'string') return undefined;
  const other = versions?.bun ? `Bun ${versions.bun}` : versions?.deno ? `Deno ${versions.deno}` : undefined;
  const [major = 0, minor = 0] = found.split('.').map(Number);
  if (other === undefined && unflaggedSqlite(major, minor)) return undefined;
  const needs = `${what} needs Node ${NODE_FLOOR} or later (on the 23 line, 23.4 or later)`;
  return other
    ? `${needs}, for node:sqlite, and this is ${other}: run it with Node.`
    : `${needs}, and this is Node ${found}: upgrade Node (nodejs.org, or your version manager).`;
}
