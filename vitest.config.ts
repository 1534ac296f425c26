import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { sourceEntries } from './scripts/source-entries.ts';

// Tests import the package by name and get its TypeScript sources (no build needed).
const alias = Object.entries(sourceEntries).map(([name, file]) => ({
  find: new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`),
  replacement: fileURLToPath(new URL(file, import.meta.url)),
}));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
