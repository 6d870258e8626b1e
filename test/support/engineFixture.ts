/**
 * A test's own SQLite tables copied onto every engine (DuckDB file, Parquet files, a fresh
 * PostgreSQL database on the test server), so one test body runs the same query descriptions
 * on each and compares what they answer.
 */
import path from 'node:path';
import pg from 'pg';
import { postgresUrls } from './engineServers.ts';
import { withPostgres } from './postgresClient.ts';
import type { ConnectionSpec } from '../../src/data/connections.ts';
import { loadData } from '../../src/data/load/index.ts';
import { temporaryDirectory } from './catalogFixture.ts';

export type FixtureEngine = 'sqlite' | 'duckdb' | 'parquet' | 'postgres';

export interface EngineFixture {
  specs: Record<FixtureEngine, ConnectionSpec>;
  /** Drops the PostgreSQL database. */
  drop(): Promise<void>;
}

const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => withPostgres((await postgresUrls()).adminUrl, work);

/**
 * Copies the tables of `sqliteFile` onto every engine.
 * @example
 * const fixture = await engineFixture(file, ['a', 'b']);
 * describe.each(Object.entries(fixture.specs))('on %s', …);
 */
export async function engineFixture(sqliteFile: string, tables: string[]): Promise<EngineFixture> {
  const directory = temporaryDirectory();
  const database = `fixture_${Math.random().toString(36).slice(2, 10)}`;
  await admin((client) => client.query(`CREATE DATABASE ${database}`));
  const postgresUrl = (await postgresUrls()).adminUrl.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
  await loadData({ from: sqliteFile, to: `duckdb:${path.join(directory, 'fixture.duckdb')}` });
  await loadData({ from: sqliteFile, to: `parquet:${path.join(directory, 'parquet')}` });
  await loadData({ from: sqliteFile, to: postgresUrl });
  return {
    specs: {
      sqlite: { name: 'default', url: `sqlite:${sqliteFile}` },
      duckdb: { name: 'default', url: `duckdb:${path.join(directory, 'fixture.duckdb')}` },
      parquet: { name: 'default', url: 'duckdb:', files: Object.fromEntries(tables.map((table) => [table, path.join(directory, 'parquet', `${table}.parquet`)])) },
      postgres: { name: 'default', url: postgresUrl },
    },
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).then(() => undefined),
  };
}
