import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * The service serves a skill's web/ files at /app/<skill>/<file>, so they import the web app's
 * modules as `../format.js` (web/app/format.js). Tests import those pure modules from disk, where
 * `../` is the skill's folder: resolved here the way the browser resolves the URL.
 */
const skillPageImports: Plugin = {
  name: 'skill-page-imports',
  enforce: 'pre',
  resolveId(source, importer) {
    if (!importer || !/^\.\.\/[a-z0-9-]+\.js$/.test(source)) return null;
    const folder = path.dirname(importer);
    if (path.basename(folder) !== 'web' || path.dirname(path.dirname(folder)) !== path.join(root, 'skills')) return null;
    return path.join(root, 'web', 'app', source.slice(3));
  },
};

export default defineConfig({
  plugins: [skillPageImports],
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
