import { defineConfig } from 'tsup';

// Kept deliberately small: entries, formats, declarations. Anything cleverer belongs in the code,
// so a later move to another bundler is a copy of this list.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    schemas: 'schemas/index.ts',
    webhooks: 'src/webhooks/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
