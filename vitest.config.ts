import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { sourceEntries } from './scripts/source-entries.ts';

// Tests import the package by name and get its TypeScript sources (no build needed).
const alias = Object.entries(sourceEntries).map(([name, file]) => ({
  find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
  replacement: fileURLToPath(new URL(file, import.meta.url)),
}));

/**
 * Files whose tests race real time on purpose (leases that run out, a burst's ends made while other
 * cursors are idle, renewals a third of a lease apart, a worker restarted while the others finish
 * its run): they run one at a time, after the others, with the machine to themselves. Most files wait on sockets, child processes and databases, so two
 * at once share the cores well.
 */
const raceRealTime = [
  'test/sync/burst-ends.test.ts',
  'test/sync/sync-leases.test.ts',
  'test/outbox/outbox-leases.test.ts',
  'test/stores/heartbeat.test.ts',
  'test/sync/page-ahead.test.ts',
  'test/sync/watch-clock.test.ts',
  'test/sync/sync-postgres-crash.test.ts',
];

export default defineConfig({
  resolve: { alias },
  test: {
    // Generous: a test that spawns the CLI seven times, beside another file's, takes 20 s on a busy machine.
    testTimeout: 60_000,
    // Child processes run the CLI and fixtures from the TypeScript sources: Node's compile cache
    // keeps each file's compiled code for the next one, which halves the start of every spawn.
    env: { NODE_COMPILE_CACHE: fileURLToPath(new URL('node_modules/.cache/node-compile/', import.meta.url)) },
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: raceRealTime, maxWorkers: 2 },
      },
      {
        extends: true,
        test: { name: 'alone', include: raceRealTime, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
