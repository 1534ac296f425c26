import { defineConfig, type Options } from 'tsup';

// Kept deliberately small: entries, formats, declarations. Anything cleverer belongs in the code,
// so a later move to another bundler is a copy of this list.
const shared: Options = {
  entry: {
    index: 'src/index.ts',
    schemas: 'schemas/index.ts',
    webhooks: 'src/webhooks/index.ts',
    testing: 'src/testing/index.ts',
    outbox: 'src/outbox/index.ts',
    'outbox-sqlite': 'src/outbox/sqlite-store.ts',
    'outbox-postgres': 'src/outbox/postgres-store.ts',
    // The two targets of the package's `#zod-compiler` import (package.json "imports").
    'zod-compiler': 'src/internal/zod-compiler.ts',
    'zod-compiler.browser': 'src/internal/zod-compiler.browser.ts',
  },
  external: ['#zod-compiler'],
  // tsup strips `node:` by default, but `node:sqlite` (the outbox's SQLite store) exists only with it.
  removeNodeProtocol: false,
  dts: true,
  sourcemap: true,
  target: 'es2022',
};

export default defineConfig([
  { ...shared, format: 'esm' },
  {
    entry: { bin: 'src/testing/bin.ts' },
    format: 'esm',
    target: 'node22',
    banner: { js: '#!/usr/bin/env node' },
  },
  // ky is ESM-only, and `require(esm)` does not expose its default export as CommonJS interop
  // expects; CommonJS consumers get ky bundled instead.
  { ...shared, format: 'cjs', noExternal: ['ky'] },
]);
