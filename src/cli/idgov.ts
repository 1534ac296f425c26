/**
 * `idgov`: the SDK's command-line tool (idgov-program.ts). This entry checks the Node version
 * before loading anything else, so that an older Node is told what it needs rather than failing in
 * a module it cannot load.
 *
 * @module
 */
import { nodeFloorProblem } from '../internal/node-floor.ts';

const problem = nodeFloorProblem('idgov');
if (problem) {
  process.stderr.write(`idgov: ${problem}\n`);
  process.exitCode = 2;
} else {
  await import('./idgov-program.ts');
}
