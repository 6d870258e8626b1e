/**
 * Copies a SQLite database (data/sample.db or a generated one) into another engine, so the
 * same finance data can be queried on DuckDB, Parquet files or PostgreSQL: the entry point of
 * `npm run data:load` and of the test setup (test/support/postgresServer.ts). It owns the
 * orchestration (which tables, timing, rows/s, progress, redaction of errors); the targets own
 * their SQL (duckdb.ts, postgres.ts) and source.ts owns reading SQLite.
 */
import path from 'node:path';
import { openSource } from './source.ts';
import { loadIntoDuckdb, loadIntoParquet } from './duckdb.ts';
import { loadIntoPostgres } from './postgres.ts';
import { parseTarget, redactTarget } from './target.ts';
import type { TableLoadResult, WriterOptions } from './types.ts';

export { parseTarget, TARGET_FORMS } from './target.ts';
export type { TableLoadResult } from './types.ts';

export interface LoadDataInput {
  /** SQLite file, optionally written `sqlite:FILE`. */
  from: string;
  /** `duckdb:FILE`, `parquet:DIR`, `postgres://…` or `postgresql://…`. */
  to: string;
  /** Only these tables (default: every table). */
  tables?: string[];
  /** Drop/overwrite existing tables instead of refusing. */
  replace?: boolean;
  /** One line per step, for a terminal. */
  onProgress?: (message: string) => void;
}

export interface LoadDataResult {
  /** The target as it may be shown (no password). */
  target: string;
  tables: TableLoadResult[];
  rows: number;
  ms: number;
  rowsPerSecond: number;
}

/**
 * Copies every table (or `tables`) of a SQLite file into a target, rows sorted like each
 * table's widest "reconcile" index. Errors never contain the target's password.
 * @throws Error for an unknown target, a missing table or file, an existing table without
 *   `replace`, or a value that does not fit its column.
 * @example
 * const result = await loadData({ from: 'data/sample.db', to: 'duckdb:/tmp/sample.duckdb', replace: true });
 * console.log(`${result.rows} rows at ${result.rowsPerSecond} rows/s`);
 */
export async function loadData(input: LoadDataInput): Promise<LoadDataResult> {
  const target = parseTarget(input.to);
  const say = input.onProgress ?? (() => undefined);
  const started = performance.now();
  const sourceFile = path.resolve(input.from.replace(/^sqlite:/i, ''));
  let source: ReturnType<typeof openSource> | undefined;
  try {
    source = openSource(sourceFile);
    const tables = source.tables(input.tables);
    say(`Copying ${tables.length} table(s), ${tables.reduce((sum, table) => sum + table.rowCount, 0)} rows, from ${sourceFile} to ${target.display}`);
    const options: WriterOptions = {
      replace: input.replace ?? false,
      progressEvery: 100_000,
      progress: (table, rows) => say(`  ${table}: ${rows} rows… (${((performance.now() - started) / 1000).toFixed(1)} s)`),
    };
    const results =
      target.kind === 'duckdb'
        ? await loadIntoDuckdb(source, tables, target.file, options)
        : target.kind === 'parquet'
          ? await loadIntoParquet(source, tables, target.directory, options)
          : await loadIntoPostgres(source, tables, target.url, target.display, options);
    for (const result of results) {
      const order = result.orderedBy ? `, sorted by ${result.orderedBy}` : '';
      const indexes = result.indexes.length > 0 ? `, ${result.indexes.length} index(es)` : '';
      say(`  ${result.table}: ${result.rows} rows in ${Math.round(result.ms)} ms (${rate(result.rows, result.ms)} rows/s${order}${indexes})`);
      for (const note of result.notes) say(`  note: ${note}`);
    }
    const ms = performance.now() - started;
    const rows = results.reduce((sum, result) => sum + result.rows, 0);
    say(`Loaded ${rows} rows into ${target.display} in ${(ms / 1000).toFixed(2)} s: ${rate(rows, ms)} rows/s`);
    return { target: target.display, tables: results, rows, ms, rowsPerSecond: rate(rows, ms) };
  } catch (error) {
    // Driver errors may quote the connection string: rethrow with it made safe.
    const message = redactTarget(error instanceof Error ? error.message : String(error), target);
    const safe = new Error(message);
    const code = (error as { code?: unknown }).code;
    if (code !== undefined) Object.assign(safe, { code });
    throw safe;
  } finally {
    source?.close();
  }
}

const rate = (rows: number, ms: number) => (ms > 0 ? Math.round((rows * 1000) / ms) : rows);
