/**
 * Vitest global setup (vitest.config.ts `test.globalSetup`): the sample data on every engine, for
 * tests that run the same question on SQLite, DuckDB, Parquet and PostgreSQL, started only when
 * a test file asks for it (engineServers.ts), at most once per run. A run of files that need no
 * database starts nothing.
 *
 * - PostgreSQL: a throwaway cluster (initdb + pg_ctl, from /usr/lib/postgresql/<v>/bin or
 *   PG_BIN) in a temp directory on a free 127.0.0.1 port, C collation so text sorts bytewise
 *   like SQLite; database `analyst` loaded from data/sample.db; role `analyst_reader` with
 *   SELECT only and read-only transactions. With PG_TEST_URL set, that server is used instead
 *   (the sample is loaded there with replace) and nothing is started or stopped.
 * - DuckDB: a temp file copy of the sample; Parquet: a temp directory with one file per table.
 *
 * Test files run in worker processes, this setup in vitest's own: it listens on 127.0.0.1 (a
 * free port, provided to the workers as `engineServers`) and answers GET /postgres and GET
 * /files with the addresses, starting what was asked for on the first request. The teardown
 * stops only the cluster it started (`pg_ctl -m fast stop`) and removes the temp files.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
    /** `http://127.0.0.1:PORT` of this setup's broker (read it through engineServers.ts). */
    engineServers: string;
  }
}

/** What GET /postgres answers. */
export interface PostgresUrls {
  /** `postgres://analyst_reader@127.0.0.1:PORT/analyst`: SELECT only, read-only transactions. */
  readerUrl: string;
  /** A superuser URL on the same server (database `postgres`), for tests that create their own database. */
  adminUrl: string;
}

/** What GET /files answers. */
export interface FileSamples {
  /** Absolute path of a DuckDB file holding the sample (open it READ_ONLY: other test files share it). */
  duckdbPath: string;
  /** Absolute path of a directory with one `<table>.parquet` per sample table. */
  parquetDirectory: string;
}

export const SAMPLE_DB = path.join(projectRoot, 'data/sample.db');
const DATABASE = 'analyst';
const READER = 'analyst_reader';

type Cleanup = () => Promise<void> | void;

/**
 * Listens for the test files' requests and returns the teardown.
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['test/support/postgresServer.ts'] } });
 * // in a test file
 * const { adminUrl } = await postgresUrls(); // engineServers.ts
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: Cleanup[] = [];
  const started: { postgres?: Promise<PostgresUrls>; files?: Promise<FileSamples> } = {};
  const timed = async <T>(what: string, start: () => Promise<{ value: T; description: string }>): Promise<T> => {
    const since = performance.now();
    const { value, description } = await start();
    process.stderr.write(`${what} ready in ${Math.round(performance.now() - since)} ms (${description})\n`);
    return value;
  };
  const answers: Record<string, () => Promise<PostgresUrls | FileSamples>> = {
    '/postgres': () => (started.postgres ??= timed('PostgreSQL', () => preparePostgres(cleanups))),
    '/files': () => (started.files ??= timed('DuckDB and Parquet samples', () => buildFileSamples(cleanups))),
  };
  const broker = http.createServer((request, response) => {
    const answer = answers[request.url ?? ''];
    if (!answer) return void response.writeHead(404).end();
    answer().then(
      (value) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value)),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end((error as Error).message),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('engineServers', `http://127.0.0.1:${(broker.address() as AddressInfo).port}`);
  return async () => {
    broker.closeAllConnections();
    await new Promise((resolve) => broker.close(resolve));
    // Whatever is still starting is stopped once it has started.
    await Promise.allSettled([started.postgres, started.files]);
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`test teardown: ${(error as Error).message}\n`);
      }
    }
  };
}

/** DuckDB file and Parquet directory of the sample, in one temp directory. */
async function buildFileSamples(cleanups: Cleanup[]): Promise<{ value: FileSamples; description: string }> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'analyst-samples-'));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const duckdbPath = path.join(directory, 'sample.duckdb');
  const parquetDirectory = path.join(directory, 'parquet');
  // One after the other: each holds a SQLite handle and a DuckDB instance; the sample is small.
  await loadData({ from: SAMPLE_DB, to: `duckdb:${duckdbPath}` });
  await loadData({ from: SAMPLE_DB, to: `parquet:${parquetDirectory}` });
  return { value: { duckdbPath, parquetDirectory }, description: `in ${directory}` };
}

async function preparePostgres(cleanups: Cleanup[]): Promise<{ value: PostgresUrls; description: string }> {
  const testUrl = process.env.PG_TEST_URL?.trim();
  if (testUrl) return { value: await loadSample(testUrl, true), description: `at PG_TEST_URL ${safeUrl(testUrl)}` };
  const cluster = await startCluster();
  cleanups.push(cluster.stop);
  return { value: await loadSample(cluster.adminUrl, false), description: `${cluster.bin} on 127.0.0.1:${cluster.port}` };
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
async function loadSample(adminUrl: string, external: boolean): Promise<PostgresUrls> {
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
