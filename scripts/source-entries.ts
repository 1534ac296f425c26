/**
 * The package's entry points mapped to their TypeScript sources, for work inside the repository:
 * tests (vitest.config.ts), examples and test fixtures run by Node (scripts/from-source.ts) resolve
 * `@idgov/sdk` here instead of `dist/`, so nothing needs a build first. tsconfig.json "paths" holds
 * the same map for the type-checker. The published package has no such mapping (the sources are not
 * in the tarball), so users always get `dist/`.
 *
 * esbuild and Bun read tsconfig.json "paths" too. Whatever must run or measure `dist/` in the
 * repository opts out: bench/size.ts and scripts/smoke/browser.mjs pass esbuild `tsconfigRaw: {}`,
 * scripts/runtime-matrix.sh gives Bun `--tsconfig-override`.
 */
export const sourceEntries: Readonly<Record<string, string>> = {
  '@idgov/sdk': 'src/index.ts',
  '@idgov/sdk/schemas': 'schemas/index.ts',
  '@idgov/sdk/webhooks': 'src/webhooks/index.ts',
  '@idgov/sdk/testing': 'src/testing/index.ts',
  '@idgov/sdk/testing/msw': 'src/testing/msw.ts',
  '@idgov/sdk/outbox': 'src/outbox/index.ts',
  '@idgov/sdk/outbox/sqlite': 'src/outbox/sqlite-store.ts',
  '@idgov/sdk/outbox/postgres': 'src/outbox/postgres-store.ts',
  '@idgov/sdk/otel': 'src/otel/index.ts',
  '@idgov/sdk/sync': 'src/sync/index.ts',
  '@idgov/sdk/sync/sqlite': 'src/sync/sqlite/store.ts',
  '@idgov/sdk/sync/postgres': 'src/sync/postgres/store.ts',
};
