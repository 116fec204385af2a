import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests bind real ports; forks keep each file's servers in their own process.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The PostgreSQL the store tests use: the configured or local server, else one started for the run.
    globalSetup: ['./test/support/postgres-server.ts'],
  },
});
