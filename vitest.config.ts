import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Skills may keep their tests in their own folder (skills/<name>/test/).
    include: ['test/**/*.test.ts', 'skills/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Once per run: a throwaway PostgreSQL plus DuckDB and Parquet copies of the sample (test/support/postgresServer.ts).
    globalSetup: ['test/support/postgresServer.ts'],
  },
});
