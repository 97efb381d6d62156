import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // every answer a test receives is checked against the server's own OpenAPI document
    setupFiles: ['test/helpers/check-responses.ts'],
    pool: 'forks',
    // two files at a time: most wait on PostgreSQL, GDAL or a child process, not on this process's CPU
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
