/**
 * DuckDB and Parquet targets of `npm run data:load`. Both go through `@duckdb/node-api`'s
 * appender (the fast bulk path: no SQL per row): a DuckDB file gets the tables themselves, a
 * Parquet directory gets one `<table>.parquet` per table written by an in-memory DuckDB
 * `COPY … TO … (FORMAT PARQUET)`. Rows arrive already sorted by the source (see source.ts) and
 * DuckDB keeps insertion order, so both come out sorted for zone-map pruning.
 *
 * SQLite's secondary indexes are not recreated in DuckDB: ART indexes only pay off for
 * selective point lookups, cost load time and memory, and the reconciliation queries are
 * scans with aggregates, which the sort order (zone maps) already serves. Measured on a generated
 * database: recreating fi_reporting's 8 indexes over 500k rows took 2.4 s on top of its 3.3 s
 * load. Primary keys are kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { quoteIdentifier, type ColumnKind, type LoadValue, type Source, type SourceTable } from './source.ts';
import type { TableLoadResult, WriterOptions } from './types.ts';

const DUCKDB_TYPES: Record<ColumnKind, string> = { text: 'VARCHAR', double: 'DOUBLE', bigint: 'BIGINT', blob: 'BLOB' };

/** CREATE TABLE in DuckDB's types; `withPrimaryKey` false for the throwaway tables behind Parquet files. */
function duckdbCreateTable(table: SourceTable, withPrimaryKey = true): string {
  const columns = table.columns.map((column) => `${quoteIdentifier(column.name)} ${DUCKDB_TYPES[column.kind]}${column.notNull ? ' NOT NULL' : ''}`);
  if (withPrimaryKey && table.primaryKey.length > 0) columns.push(`PRIMARY KEY (${table.primaryKey.map(quoteIdentifier).join(', ')})`);
  return `CREATE TABLE ${quoteIdentifier(table.name)} (${columns.join(', ')})`;
}

/** One appender call per column, chosen once per table instead of per value. */
function appenders(table: SourceTable): ((appender: DuckDBAppender, value: LoadValue) => void)[] {
  return table.columns.map((column) => {
    switch (column.kind) {
      case 'text':
        return (appender, value) => (value === null ? appender.appendNull() : appender.appendVarchar(value as string));
      case 'double':
        return (appender, value) => (value === null ? appender.appendNull() : appender.appendDouble(value as number));
      case 'bigint':
        return (appender, value) => (value === null ? appender.appendNull() : appender.appendBigInt(value as bigint));
      case 'blob':
        return (appender, value) => (value === null ? appender.appendNull() : appender.appendBlob(value as Buffer));
    }
  });
}

async function appendTable(connection: DuckDBConnection, source: Source, table: SourceTable, options: WriterOptions): Promise<number> {
  const appender = await connection.createAppender(table.name);
  const append = appenders(table);
  let rows = 0;
  try {
    for (const row of source.rows(table)) {
      for (let i = 0; i < row.length; i++) append[i]!(appender, row[i]!);
      appender.endRow();
      if (++rows % options.progressEvery === 0) options.progress(table.name, rows);
    }
  } finally {
    appender.closeSync(); // flushes what is left
  }
  return rows;
}

const skippedIndexNote = (table: SourceTable) =>
  table.indexes.length === 0 ? [] : [`${table.name}: ${table.indexes.length} SQLite index(es) not recreated in DuckDB (${table.indexes.map((index) => index.name).join(', ')}): ART indexes only help point lookups; scans use the sort order's zone maps`];

/**
 * Copies tables into a DuckDB file (created when missing), all in one transaction, so a failed
 * load leaves the file as it was.
 * @throws Error when a table exists and `replace` is false.
 * @example
 * await loadIntoDuckdb(source, source.tables(), '/tmp/sample.duckdb', { replace: true, progress: () => {}, progressEvery: 100_000 });
 */
export async function loadIntoDuckdb(source: Source, tables: SourceTable[], file: string, options: WriterOptions): Promise<TableLoadResult[]> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    const existing = new Set((await connection.runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'")).getRows().map((row) => String(row[0])));
    const clash = tables.filter((table) => existing.has(table.name)).map((table) => table.name);
    if (clash.length > 0 && !options.replace) throw new Error(`Table ${clash.join(', ')} already exists in duckdb:${file}; pass --replace to drop and reload it`);
    await connection.run('BEGIN TRANSACTION');
    const results: TableLoadResult[] = [];
    try {
      for (const table of tables) {
        const started = performance.now();
        if (existing.has(table.name)) await connection.run(`DROP TABLE ${quoteIdentifier(table.name)}`);
        await connection.run(duckdbCreateTable(table));
        const rows = await appendTable(connection, source, table, options);
        results.push({ table: table.name, rows, ms: performance.now() - started, orderedBy: table.orderedBy?.index ?? null, indexes: [], notes: skippedIndexNote(table) });
      }
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    // Reclaim the pages of dropped tables and write everything to the file now.
    await connection.run('CHECKPOINT');
    return results;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/**
 * Writes `<directory>/<table>.parquet` per table (sorted like the source scan), each first to
 * a temporary name and renamed into place, so a reader never sees half a file.
 * @throws Error when a file exists and `replace` is false.
 * @example
 * await loadIntoParquet(source, source.tables(), '/tmp/sample-parquet', { replace: false, progress: () => {}, progressEvery: 100_000 });
 */
export async function loadIntoParquet(source: Source, tables: SourceTable[], directory: string, options: WriterOptions): Promise<TableLoadResult[]> {
  const fileOf = (table: SourceTable) => path.join(directory, `${table.name}.parquet`);
  const clash = tables.filter((table) => fs.existsSync(fileOf(table))).map((table) => path.basename(fileOf(table)));
  if (clash.length > 0 && !options.replace) throw new Error(`${clash.join(', ')} already exists in parquet:${directory}; pass --replace to overwrite it`);
  fs.mkdirSync(directory, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const results: TableLoadResult[] = [];
  try {
    for (const table of tables) {
      const started = performance.now();
      await connection.run(duckdbCreateTable(table, false));
      const rows = await appendTable(connection, source, table, options);
      const temporary = path.join(directory, `.${table.name}.parquet.${process.pid}.tmp`);
      try {
        // preserve_insertion_order (DuckDB's default) keeps the source's sort order in the file.
        await connection.run(`COPY ${quoteIdentifier(table.name)} TO '${temporary.replaceAll("'", "''")}' (FORMAT PARQUET)`);
        fs.renameSync(temporary, fileOf(table));
      } finally {
        fs.rmSync(temporary, { force: true });
      }
      await connection.run(`DROP TABLE ${quoteIdentifier(table.name)}`); // frees its memory before the next table
      results.push({ table: table.name, rows, ms: performance.now() - started, orderedBy: table.orderedBy?.index ?? null, indexes: [], notes: [] });
    }
    return results;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
