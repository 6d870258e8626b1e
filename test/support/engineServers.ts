/**
 * The test PostgreSQL server and the DuckDB/Parquet copies of the sample, for the test files that
 * use them: the first call in a run starts them (in the global setup's process, postgresServer.ts),
 * later calls, from any file, get the same ones. Files that never call these start nothing.
 */
import { inject } from 'vitest';
import type { FileSamples, PostgresUrls } from './postgresServer.ts';

let postgres: Promise<PostgresUrls> | undefined;
let files: Promise<FileSamples> | undefined;

async function ask<T>(what: 'postgres' | 'files'): Promise<T> {
  const response = await fetch(`${inject('engineServers')}/${what}`);
  if (!response.ok) throw new Error(`the test ${what === 'postgres' ? 'PostgreSQL server' : 'DuckDB and Parquet samples'} could not start: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * The reader and superuser URLs of the test PostgreSQL server (PG_TEST_URL's server when set).
 * @example
 * const { adminUrl } = await postgresUrls();
 * await withPostgres(adminUrl, (client) => client.query('CREATE DATABASE scratch'));
 */
export function postgresUrls(): Promise<PostgresUrls> {
  return (postgres ??= ask<PostgresUrls>('postgres'));
}

/**
 * The DuckDB file and the Parquet directory holding the sample (shared: open them read-only).
 * @example
 * const { duckdbPath } = await fileSamples();
 */
export function fileSamples(): Promise<FileSamples> {
  return (files ??= ask<FileSamples>('files'));
}
