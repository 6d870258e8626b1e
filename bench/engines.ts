/**
 * The benchmark's engine axis: the same generated database on SQLite (the file itself), DuckDB
 * (a copy, cached in bench/.data), PostgreSQL (a throwaway server started for the run, loaded
 * per size) and across engines (fi_acquisition on PostgreSQL, fi_reporting as Parquet read by
 * DuckDB). Each engine is described by the connections the measurement opens.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ConnectionSpec } from '../src/data/connections.ts';
import { loadData } from '../src/data/load/index.ts';
import { startCluster } from '../scripts/postgresCluster.ts';
import { SOURCE_A, SOURCE_B } from './cases.ts';

export type BenchEngine = 'sqlite' | 'duckdb' | 'postgres' | 'postgres+duckdb';
export const ENGINES: readonly BenchEngine[] = ['sqlite', 'duckdb', 'postgres', 'postgres+duckdb'];

/** Which source lives on which connection: all on `default`, or A and B apart. */
export interface EngineSetup {
  connections: ConnectionSpec[];
  /** Connection of side A (fi_acquisition) and side B (fi_reporting). */
  a: string;
  b: string;
}

const TABLES = [SOURCE_A.table, SOURCE_B.table];

export class EnginePreparer {
  private cluster: Awaited<ReturnType<typeof startCluster>> | undefined;
  private readonly loaded = new Set<string>();

  constructor(private readonly dataDirectory: string, private readonly log: (line: string) => void) {}

  /** The connections for `engine` over the generated SQLite database of `rows` rows per source. */
  async prepare(engine: BenchEngine, sqliteFile: string, rows: number): Promise<EngineSetup> {
    const all = (spec: Omit<ConnectionSpec, 'name'>): EngineSetup => ({ connections: [{ name: 'default', ...spec }], a: 'default', b: 'default' });
    if (engine === 'sqlite') return all({ url: `sqlite:${sqliteFile}` });
    if (engine === 'duckdb') return all({ url: `duckdb:${await this.duckdb(sqliteFile, rows)}` });
    if (engine === 'postgres') return all({ url: await this.postgresUrl(sqliteFile, rows) });
    const parquet = await this.parquet(sqliteFile, rows);
    return {
      connections: [
        { name: 'default', url: `sqlite:${sqliteFile}` },
        { name: 'warehouse', url: await this.postgresUrl(sqliteFile, rows) },
        { name: 'exports', url: 'duckdb:', files: { [SOURCE_B.table]: path.join(parquet, `${SOURCE_B.table}.parquet`) } },
      ],
      a: 'warehouse',
      b: 'exports',
    };
  }

  async close(): Promise<void> {
    await this.cluster?.stop();
  }

  private async duckdb(sqliteFile: string, rows: number): Promise<string> {
    const file = path.join(this.dataDirectory, `bench-${rows}.duckdb`);
    if (!existsSync(file)) {
      this.log(`loading ${rows.toLocaleString('en-US')} rows per source into DuckDB…`);
      await loadData({ from: sqliteFile, to: `duckdb:${file}`, tables: TABLES });
    }
    return file;
  }

  private async parquet(sqliteFile: string, rows: number): Promise<string> {
    const directory = path.join(this.dataDirectory, `bench-${rows}-parquet`);
    if (!existsSync(path.join(directory, `${SOURCE_B.table}.parquet`))) {
      this.log(`writing ${rows.toLocaleString('en-US')} rows of ${SOURCE_B.table} as Parquet…`);
      await loadData({ from: sqliteFile, to: `parquet:${directory}`, tables: [SOURCE_B.table] });
    }
    return directory;
  }

  /**
   * A database per size on one throwaway server for the whole run (loaded once per run). With
   * BENCH_POSTGRES_URL (a superuser URL of a server of your own, database `postgres`), the
   * databases a run loaded there (bench_1000000, …) are kept and reused by the next run:
   * loading 10 M rows takes about 13 minutes.
   */
  async postgresUrl(sqliteFile: string, rows: number): Promise<string> {
    const own = process.env.BENCH_POSTGRES_URL?.trim();
    const adminUrl = own || (this.cluster ??= await startCluster()).adminUrl;
    const database = `bench_${rows}`;
    const url = adminUrl.replace(/\/postgres$/, `/${database}`);
    if (!this.loaded.has(database)) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const kept = own ? (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1 : false;
      if (kept) {
        await client.end();
        this.loaded.add(database);
        return url;
      }
      await client.query(`CREATE DATABASE ${database}`).finally(() => client.end());
      this.log(`loading ${rows.toLocaleString('en-US')} rows per source into PostgreSQL…`);
      await loadData({ from: sqliteFile, to: url, tables: TABLES });
      this.loaded.add(database);
    }
    return url;
  }
}
