/**
 * The oldest Node the server-side parts run on (the CLI, the SQLite stores): `node:sqlite` without
 * a flag, and commander, came with 22.13. Stated once here; `engines` in package.json says the same.
 *
 * @module
 */

/** The oldest Node the CLI and the SQLite stores run on. */
export const NODE_FLOOR = '22.13.0';

/**
 * What to tell when this Node is older than {@link NODE_FLOOR}, for `what` (a command, a store);
 * undefined on a Node as new, and where there is no Node (a browser, Deno, Bun say no version).
 */
export function nodeFloorProblem(what: string): string | undefined {
  const found = globalThis.process?.versions?.node;
  if (typeof found !== 'string' || globalThis.process?.versions?.bun !== undefined) return undefined;
  const [major = 0, minor = 0] = found.split('.').map(Number);
  const [floorMajor = 0, floorMinor = 0] = NODE_FLOOR.split('.').map(Number);
  if (major > floorMajor || (major === floorMajor && minor >= floorMinor)) return undefined;
  return `${what} needs Node ${NODE_FLOOR} or later, and this is Node ${found}: upgrade Node (nodejs.org, or your version manager).`;
}
