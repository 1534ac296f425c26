import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@idgov/source'] },
  ssr: { resolve: { conditions: ['@idgov/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
