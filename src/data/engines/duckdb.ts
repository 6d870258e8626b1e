/**
 * The DuckDB engine (@duckdb/node-api, in process, columnar): a `.duckdb` file opened read-only,
 * or Parquet/CSV files declared as tables (views over read_parquet / read_csv_auto in an
 * in-memory database). DuckDB has no statement timeout: a timeout or a cancelled question
 * interrupts the connection, which stops the statement and keeps the connection usable.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { duckdbDialect } from '../dialect.ts';
import { withComputedColumns, type ComputedColumns } from '../periodColumns.ts';
import type { Value } from '../query.ts';
import { plainValue, type Engine } from './engine.ts';

export interface DuckdbOptions {
  /** A DuckDB database file, opened read-only; undefined for an in-memory database of files. */
  file: string | undefined;
  /** Tables backed by files: table → path or glob (`exports/bpc/*.parquet`, `fi.csv`). */
  files: Record<string, string>;
  /** Tables with computed period columns (periodColumns.ts). */
  computed?: ComputedColumns | undefined;
}

/** DuckDB's memory_limit per query worker (docs/operations.md's benchmark measures it). */
const MEMORY_LIMIT = '384MB';

/**
 * Opens a DuckDB engine.
 * @example
 * const engine = await openDuckdb({ file: 'sample.duckdb', files: {} });
 * const exports = await openDuckdb({ file: undefined, files: { bpc_reporting: 'exports/bpc/*.parquet' } });
 */
export async function openDuckdb(options: DuckdbOptions): Promise<Engine> {
  const instance = await DuckDBInstance.create(options.file ?? ':memory:', options.file ? { access_mode: 'READ_ONLY' } : {});
  const connection = await instance.connect();
  try {
    for (const [table, path] of Object.entries(options.files)) {
      // The path is the catalog's (not a model's); quoted as a SQL string literal.
      // A CSV's column types are read from every line (sample_size = -1): from a sample DuckDB
      // types an amount column BIGINT when its first lines are whole numbers and then silently
      // rounds 77777.5 to 77778. It costs a second pass over the file per query; Parquet has types.
      const literal = `'${path.replaceAll("'", "''")}'`;
      const reader = /\.csv(\.gz)?$/i.test(path) ? `read_csv_auto(${literal}, sample_size = -1)` : `read_parquet(${literal})`;
      await connection.run(`CREATE VIEW "${table.replaceAll('"', '')}" AS SELECT * FROM ${reader}`);
    }
    // Only the declared files may be read and nothing written, whatever a statement says: the
    // files are allowed by name (a glob by its folder), then file access is switched off for good.
    const paths = Object.values(options.files);
    const exact = paths.filter((file) => !/[*?[]/.test(file));
    const folders = paths.filter((file) => /[*?[]/.test(file)).map((glob) => `${glob.slice(0, glob.search(/[*?[]/)).replace(/[^/]*$/, '')}`);
    const list = (values: string[]) => `[${values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ')}]`;
    if (exact.length) await connection.run(`SET allowed_paths = ${list(exact)}`);
    if (folders.length) await connection.run(`SET allowed_directories = ${list(folders)}`);
    // DuckDB takes most of the machine's memory by default; a bounded share keeps a query worker
    // a good neighbour (larger aggregations spill to DuckDB's temporary files instead).
    await connection.run(`SET memory_limit = '${MEMORY_LIMIT}'`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  const rows = async (sql: string, params: readonly Value[]) => (await connection.runAndReadAll(sql, params as DuckDBValue[])).getRowsJS();
  return {
    kind: 'duckdb',
    dialect: withComputedColumns(duckdbDialect, options.computed),
    all: async (sql, params) => (await rows(sql, params)).map((row) => row.map(plainValue)),
    chunks: (sql, params) => chunksOf(connection, sql, params),
    columns: async (table) => {
      const found = (await rows('SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position', [table])).map((row) => String(row[0]));
      return found.length > 0 ? found : undefined;
    },
    interrupt: () => connection.interrupt(),
    close: async () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function* chunksOf(connection: DuckDBConnection, sql: string, params: readonly Value[]): AsyncIterable<unknown[][]> {
  const result = await connection.stream(sql, params as DuckDBValue[]);
  for await (const rows of result.yieldRowsJs()) yield rows.map((row) => row.map(plainValue));
}
