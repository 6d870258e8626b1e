/**
 * Vitest global setup (vitest.config.ts `test.globalSetup`): the sample data on every engine,
 * built once per run, for tests that run the same question on SQLite, DuckDB, Parquet and
 * PostgreSQL (see engineSamples.ts).
 *
 * - PostgreSQL: a throwaway cluster (initdb + pg_ctl, from /usr/lib/postgresql/<v>/bin or
 *   PG_BIN) in a temp directory on a free 127.0.0.1 port, C collation so text sorts bytewise
 *   like SQLite; database `analyst` loaded from data/sample.db; role `analyst_reader` with
 *   SELECT only and read-only transactions. With PG_TEST_URL set, that server is used instead
 *   (the sample is loaded there with replace) and nothing is started or stopped.
 * - DuckDB: a temp file copy of the sample; Parquet: a temp directory with one file per table.
 *
 * Provides postgresUrl (reader), postgresAdminUrl (superuser, for tests that must write, e.g.
 * into a database of their own), duckdbSamplePath, parquetSampleDirectory. The teardown stops
 * only the cluster it started (`pg_ctl -m fast stop`) and removes the temp files.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../src/config/config.ts';
import { loadData } from '../../src/data/load/index.ts';
import { safeUrl } from '../../src/shared/redact.ts';
import { startCluster } from '../../scripts/postgresCluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres://analyst_reader@127.0.0.1:PORT/analyst`: SELECT only, read-only transactions. */
    postgresUrl: string;
    /** A superuser URL on the same server (database `postgres`), for tests that create their own database. */
    postgresAdminUrl: string;
    /** Absolute path of a DuckDB file holding the sample (open it READ_ONLY: other test files share it). */
    duckdbSamplePath: string;
    /** Absolute path of a directory with one `<table>.parquet` per sample table. */
    parquetSampleDirectory: string;
  }
}

export const SAMPLE_DB = path.join(projectRoot, 'data/sample.db');
const DATABASE = 'analyst';
const READER = 'analyst_reader';

/**
 * Starts what the engine tests need and returns the teardown.
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['test/support/postgresServer.ts'] } });
 * // in a test
 * const client = new pg.Client(inject('postgresUrl'));
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const cleanups: (() => Promise<void> | void)[] = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`test teardown: ${(error as Error).message}\n`);
      }
    }
  };
  try {
    const [postgres, samples] = await Promise.all([preparePostgres(cleanups), buildFileSamples(cleanups)]);
    project.provide('postgresUrl', postgres.readerUrl);
    project.provide('postgresAdminUrl', postgres.adminUrl);
    project.provide('duckdbSamplePath', samples.duckdb);
    project.provide('parquetSampleDirectory', samples.parquet);
    process.stderr.write(`Engine samples ready in ${Math.round(performance.now() - started)} ms (PostgreSQL ${postgres.description}; DuckDB and Parquet in ${samples.directory})\n`);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

/** DuckDB file and Parquet directory of the sample, in one temp directory. */
async function buildFileSamples(cleanups: (() => void)[]) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'analyst-samples-'));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const duckdb = path.join(directory, 'sample.duckdb');
  const parquet = path.join(directory, 'parquet');
  // One after the other: each holds a SQLite handle and a DuckDB instance; the sample is small.
  await loadData({ from: SAMPLE_DB, to: `duckdb:${duckdb}` });
  await loadData({ from: SAMPLE_DB, to: `parquet:${parquet}` });
  return { directory, duckdb, parquet };
}

async function preparePostgres(cleanups: (() => Promise<void> | void)[]): Promise<{ adminUrl: string; readerUrl: string; description: string }> {
  const testUrl = process.env.PG_TEST_URL?.trim();
  if (testUrl) {
    const { adminUrl, readerUrl } = await loadSample(testUrl, true);
    return { adminUrl, readerUrl, description: `at PG_TEST_URL ${safeUrl(testUrl)}` };
  }
  const cluster = await startCluster();
  cleanups.push(cluster.stop);
  const { adminUrl, readerUrl } = await loadSample(cluster.adminUrl, false);
  return { adminUrl, readerUrl, description: `${cluster.bin} on 127.0.0.1:${cluster.port}` };
}

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

async function query(url: string, statements: string[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Database `analyst` with the sample and the reader role. On a server of our own the role has no
 * password (trust); on PG_TEST_URL's server it gets a fresh random one, so the reader URL works
 * whatever its authentication.
 */
async function loadSample(adminUrl: string, external: boolean): Promise<{ adminUrl: string; readerUrl: string }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const password = external ? randomBytes(18).toString('base64url') : undefined;
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])).rowCount === 1;
    if (!exists) await admin.query(`CREATE DATABASE ${DATABASE}`);
    const role = (await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [READER])).rowCount === 1;
    if (!role) await admin.query(`CREATE ROLE ${READER} LOGIN`);
    await admin.query(`ALTER ROLE ${READER} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE ${password ? `PASSWORD '${password}'` : ''}`);
    await admin.query(`ALTER ROLE ${READER} SET default_transaction_read_only = on`);
  } finally {
    await admin.end();
  }
  const analystAdminUrl = withDatabase(adminUrl, DATABASE);
  await loadData({ from: SAMPLE_DB, to: analystAdminUrl, replace: external });
  await query(analystAdminUrl, [
    `REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
    `GRANT CONNECT ON DATABASE ${DATABASE} TO ${READER}`,
    `GRANT USAGE ON SCHEMA public TO ${READER}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${READER}`,
    // Tables reloaded later (data:load --replace by this admin) stay readable.
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ${READER}`,
  ]);
  const reader = new URL(analystAdminUrl);
  reader.username = READER;
  reader.password = password ?? '';
  return { adminUrl, readerUrl: reader.toString() };
}
