import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests bind real ports and PostgreSQL; keep worker count modest on 2-core machines.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
