import { defineConfig, type Options } from 'tsup';

// Kept deliberately small: entries, formats, declarations. Anything cleverer belongs in the code,
// so a later move to another bundler is a copy of this list.
const shared: Options = {
  entry: {
    index: 'src/index.ts',
    schemas: 'schemas/index.ts',
    webhooks: 'src/webhooks/index.ts',
    testing: 'src/testing/index.ts',
    'testing-msw': 'src/testing/msw.ts',
    outbox: 'src/outbox/index.ts',
    'outbox-sqlite': 'src/outbox/sqlite-store.ts',
    'outbox-postgres': 'src/outbox/postgres-store.ts',
    otel: 'src/otel/index.ts',
    sync: 'src/sync/index.ts',
    'sync-sqlite': 'src/sync/sqlite/store.ts',
    'sync-sqlite-thread': 'src/sync/sqlite/thread.ts',
    'sync-postgres': 'src/sync/postgres/store.ts',
  },
  // tsup strips `node:` by default, but `node:sqlite` (the outbox's SQLite store) exists only with it.
  removeNodeProtocol: false,
  // `import.meta.url` in the CommonJS build too (the SQLite sync store finds its thread's module by
  // it); injected only where a module uses it.
  shims: true,
  // Members tagged @internal (constructors the SDK calls, hooks' emit and wants) stay out of the
  // published declarations: users' editors do not offer them.
  dts: { compilerOptions: { stripInternal: true } },
  // No source maps: the output is unminified and keeps the sources' names and structure, so stack
  // traces read as they are; maps would double the package and point at sources it does not ship
  // (CONTRIBUTING.md, Package contents).
  sourcemap: false,
  target: 'es2022',
};

export default defineConfig([
  { ...shared, format: 'esm' },
  {
    entry: { bin: 'src/cli/fake-tenant.ts', idgov: 'src/cli/idgov.ts' },
    format: 'esm',
    target: 'node22',
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
  },
  // ky is ESM-only, and `require(esm)` does not expose its default export as CommonJS interop
  // expects; CommonJS consumers get ky bundled instead.
  { ...shared, format: 'cjs', noExternal: ['ky'] },
]);
