/**
 * The sample data's address on every engine, for tests that run the same question on each
 * (`describe.each(Object.entries(await engineSampleUrls()))`). DuckDB, PostgreSQL and Parquet
 * copies are built once per run, when a file first asks (engineServers.ts); SQLite is
 * data/sample.db itself.
 */
import path from 'node:path';
import { projectRoot } from '../../src/config/config.ts';
import { fileSamples, postgresUrls } from './engineServers.ts';

export interface EngineSampleUrls {
  /** `sqlite:<absolute path of data/sample.db>` */
  sqlite: string;
  /** `duckdb:<absolute path of a temp copy>` (open it READ_ONLY: it is shared across test files). */
  duckdb: string;
  /** `postgres://analyst_reader@127.0.0.1:PORT/analyst` (SELECT only). */
  postgres: string;
  /** Directory with one `<table>.parquet` per sample table. */
  parquet: string;
}

/**
 * Where the sample lives on each engine, for this test run (starts them on the first call).
 * @example
 * const urls = await engineSampleUrls();
 * describe.each(Object.entries(urls))('on %s', (engine, url) => { ... });
 */
export async function engineSampleUrls(): Promise<EngineSampleUrls> {
  const [{ readerUrl }, { duckdbPath, parquetDirectory }] = await Promise.all([postgresUrls(), fileSamples()]);
  return {
    sqlite: `sqlite:${path.join(projectRoot, 'data/sample.db')}`,
    duckdb: `duckdb:${duckdbPath}`,
    postgres: readerUrl,
    parquet: parquetDirectory,
  };
}
