/**
 * The DuckDB engine (@duckdb/node-api, in process, columnar): a `.duckdb` file opened read-only,
 * or Parquet/CSV files declared as tables (views over read_parquet / read_csv_auto in an
 * in-memory database). DuckDB has no statement timeout: a timeout or a cancelled question
 * interrupts the connection, which stops the statement and keeps the connection usable.
 */
import { DuckDBInstance, DuckDBScalarFunction, BIGINT, VARCHAR, type DuckDBConnection, type DuckDBValue, type DuckDBVector } from '@duckdb/node-api';
import { KeyBytes } from '../keyHash.ts';
import { duckdbDialect } from '../dialect.ts';
import { withComputedColumns, type ComputedColumns } from '../periodColumns.ts';
import type { Value } from '../query.ts';
import { chunksOf, entriesOf, wordsOf } from './duckdbRows.ts';
import { RowNotebooks } from './duckdbRowNotes.ts';
import { spillFolder } from './duckdbSpill.ts';
import { DEFAULT_DUCKDB_MEMORY_LIMIT } from '../../shared/memorySize.ts';
import { plainValue, type Engine } from './engine.ts';

export interface DuckdbOptions {
  /** A DuckDB database file, opened read-only; undefined for an in-memory database of files. */
  file: string | undefined;
  /** Tables backed by files: table → path or glob (`exports/bpc/*.parquet`, `fi.csv`). */
  files: Record<string, string>;
  /** Tables with computed period columns (periodColumns.ts). */
  computed?: ComputedColumns | undefined;
  /** DuckDB's memory_limit (default DEFAULT_DUCKDB_MEMORY_LIMIT); beyond it, work spills to temporary files. */
  memoryLimit?: string | undefined;
}

/**
 * Opens a DuckDB engine.
 * @example
 * const engine = await openDuckdb({ file: 'sample.duckdb', files: {} });
 * const exports = await openDuckdb({ file: undefined, files: { bpc_reporting: 'exports/bpc/*.parquet' } });
 */
export async function openDuckdb(options: DuckdbOptions): Promise<Engine> {
  // Work beyond the memory limit spills to a folder of this engine's own (duckdbSpill.ts).
  const spill = spillFolder();
  let instance: DuckDBInstance | undefined;
  let connection: DuckDBConnection | undefined;
  let notebooks: RowNotebooks | undefined;
  try {
    // DuckDB takes most of the machine's memory by default; a bounded share keeps a query worker
    // a good neighbour (larger aggregations spill to the folder instead).
    const settings = { temp_directory: spill.path, memory_limit: options.memoryLimit ?? DEFAULT_DUCKDB_MEMORY_LIMIT };
    instance = await DuckDBInstance.create(options.file ?? ':memory:', options.file ? { ...settings, access_mode: 'READ_ONLY' } : settings);
    connection = await instance.connect();
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
    await connection.run('SET enable_external_access = false');
    registerKeyHash(connection);
    notebooks = new RowNotebooks(connection);
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    connection?.closeSync();
    instance?.closeSync();
    spill.remove();
    throw error;
  }
  const session = connection;
  const database = instance;
  const rows = async (sql: string, params: readonly Value[]) => (await session.runAndReadAll(sql, params as DuckDBValue[])).getRowsJS();
  return {
    kind: 'duckdb',
    dialect: withComputedColumns(duckdbDialect, options.computed),
    all: async (sql, params) => (await rows(sql, params)).map((row) => row.map(plainValue)),
    chunks: (sql, params) => chunksOf(session, sql, params),
    columns: async (table) => {
      const found = (await rows('SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position', [table])).map((row) => String(row[0]));
      return found.length > 0 ? found : undefined;
    },
    // A single Parquet file's rows are numbered (file_row_number); a glob's restart with each
    // file, a CSV has no numbers, a table with computed columns is read through a derived table.
    rowNotes: async (table) => {
      const path = options.files[table];
      if (!path || /[*?[]/.test(path) || /\.csv(\.gz)?$/i.test(path) || options.computed?.[table]) return undefined;
      const columns = await rows('SELECT column_name FROM information_schema.columns WHERE table_name = ?', [table]);
      if (columns.some((row) => String(row[0]).toLowerCase() === 'file_row_number')) return undefined;
      return notebooks!.open(`read_parquet('${path.replaceAll("'", "''")}', file_row_number = true)`);
    },
    interrupt: () => session.interrupt(),
    close: async () => {
      try {
        session.closeSync();
        database.closeSync();
      } finally {
        spill.remove();
      }
    },
  };
}

/**
 * The key hash of checksum bisection, `key_hash(part, …)`: PostgreSQL's hashtextextended(…, 0)
 * of the parts joined by U+001F (keyHash.ts), a BIGINT. Parts are never NULL (the SQL writes
 * NULL as U+001E). DuckDB stores a text of up to 12 bytes inside its vector entry (4 bytes of
 * length, then the bytes): those are hashed from there, without making a JavaScript string of
 * each; longer ones are read as strings. The result's two 32-bit halves are written straight
 * into the vector's memory, without a BigInt per key. It runs on JavaScript's thread: ~0.3 µs a
 * key instead of ~1.3 µs through strings.
 */
function registerKeyHash(connection: DuckDBConnection): void {
  const key = new KeyBytes();
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: 'key_hash',
      returnType: BIGINT,
      varArgsType: VARCHAR,
      mainFunction: (_info, input, output) => {
        const parts = Array.from({ length: input.columnCount }, (_, index) => input.getColumnVector(index) as DuckDBVector<string>);
        const entries = parts.map(entriesOf);
        const bytes = entries.map((view) => view && new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
        const words = wordsOf(output as DuckDBVector<bigint>);
        // Read once: each read of rowCount is a call into DuckDB (a third of the function's time when read per row).
        const rows = input.rowCount;
        for (let row = 0; row < rows; row += 1) {
          key.reset();
          for (let part = 0; part < parts.length; part += 1) {
            const view = entries[part];
            const length = view ? view.getUint32(row * 16, true) : Infinity;
            if (length <= 12) key.utf8(bytes[part]!, row * 16 + 4, length);
            else key.text(String(parts[part]!.getItem(row)));
          }
          if (words) key.hashInto(words, row * 2);
          else output.setItem(row, key.hash64());
        }
        output.flush();
      },
    }),
  );
}

