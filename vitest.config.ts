import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Skills may keep their tests in their own folder (skills/<name>/test/).
    include: ['test/**/*.test.ts', 'skills/**/*.test.ts'],
    // Timeouts only catch hangs: tests assert behaviour, never speed (speed is `npm run bench` /
    // `npm run bench:latency` / `npm run load`), and a shared or busy machine is slow.
    testTimeout: 60_000,
    // Long enough for the first file that asks for PostgreSQL to wait for its start on a busy machine.
    hookTimeout: 120_000,
    // Listens for the files that need PostgreSQL or the DuckDB/Parquet samples and starts them on
    // their first request (test/support/postgresServer.ts, read through test/support/engineServers.ts).
    globalSetup: ['test/support/postgresServer.ts'],
  },
});
