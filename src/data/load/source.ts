/**
 * The SQLite side of `npm run data:load`: what a source file holds (tables, columns with their
 * portable kind, primary keys, indexes) and its rows, streamed in scan order. Owned here so
 * that every target (DuckDB, Parquet, PostgreSQL) copies the same schema reading and the same
 * value coercion, and so that the row order ("sorted like the widest reconcile index") is
 * decided once.
 */
import Database from 'better-sqlite3';

/** The portable type a SQLite column maps to (SQLite's type affinity rules, §3.1 of its docs). */
export type ColumnKind = 'text' | 'double' | 'bigint' | 'blob';

export interface SourceColumn {
  name: string;
  /** As declared in CREATE TABLE, e.g. `TEXT`. */
  declaredType: string;
  kind: ColumnKind;
  notNull: boolean;
}

export interface SourceIndex {
  name: string;
  unique: boolean;
  /** Indexed column names in order; empty when the index has expressions. */
  columns: string[];
  /** CREATE INDEX text from sqlite_master; null for indexes SQLite made for UNIQUE constraints. */
  sql: string | null;
}

export interface SourceTable {
  name: string;
  columns: SourceColumn[];
  /** Primary key columns in key order (empty without one). */
  primaryKey: string[];
  /** Explicit indexes and UNIQUE constraints; the primary key is part of the table instead. */
  indexes: SourceIndex[];
  /** The index whose column order rows are read in, when the table has a "reconcile" index. */
  orderedBy: { index: string; columns: string[] } | null;
  rowCount: number;
}

/** A value ready for every target: strings, doubles, bigints, bytes or null. */
export type LoadValue = string | number | bigint | Buffer | null;

/**
 * Portable kind of a declared SQLite type, by SQLite's affinity rules.
 * @throws Error for a column without a declared type (its values could be anything).
 * @example
 * columnKind('INTEGER'); // 'bigint'
 * columnKind('REAL'); // 'double'
 */
function columnKind(declaredType: string): ColumnKind {
  const type = declaredType.toUpperCase();
  if (type.includes('INT')) return 'bigint';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type.includes('BLOB')) return 'blob';
  if (type.trim() === '') throw new Error('a column without a declared type cannot be mapped to a typed engine');
  // REAL, FLOAT, DOUBLE, and NUMERIC/DECIMAL (SQLite stores those as numbers too).
  return 'double';
}

/** Double-quoted identifier, valid in SQLite, DuckDB and PostgreSQL. */
export const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A SQLite database opened read-only for copying.
 * @example
 * const source = openSource('data/sample.db');
 * for (const table of source.tables()) console.log(table.name, table.rowCount);
 * source.close();
 */
export function openSource(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });

  const tableNames = (): string[] =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid").pluck().all() as string[]);

  function describe(name: string): SourceTable {
    const info = db.prepare(`PRAGMA table_info(${quoteIdentifier(name)})`).all() as { name: string; type: string; notnull: number; pk: number }[];
    const columns = info.map((column) => {
      try {
        return { name: column.name, declaredType: column.type, kind: columnKind(column.type), notNull: column.notnull === 1 || column.pk > 0 };
      } catch (error) {
        throw new Error(`Table ${name}, column ${column.name}: ${(error as Error).message}`);
      }
    });
    const primaryKey = info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name);
    const sqlByName = new Map((db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(name) as { name: string; sql: string | null }[]).map((row) => [row.name, row.sql]));
    const definitionOrder = [...sqlByName.keys()];
    const list = db.prepare(`PRAGMA index_list(${quoteIdentifier(name)})`).all() as { name: string; unique: number; origin: string }[];
    const indexes: SourceIndex[] = list
      .filter((index) => index.origin !== 'pk')
      .map((index) => {
        const keyColumns = db.prepare(`PRAGMA index_info(${quoteIdentifier(index.name)})`).all() as { seqno: number; name: string | null }[];
        const hasExpression = keyColumns.some((column) => column.name === null);
        return {
          name: index.name,
          unique: index.unique === 1,
          columns: hasExpression ? [] : keyColumns.sort((a, b) => a.seqno - b.seqno).map((column) => column.name!),
          sql: sqlByName.get(index.name) ?? null,
        };
      })
      // sqlite_master order, i.e. the order the schema author wrote them in.
      .sort((a, b) => definitionOrder.indexOf(a.name) - definitionOrder.indexOf(b.name));
    const rowCount = Number(db.prepare(`SELECT COUNT(*) FROM ${quoteIdentifier(name)}`).pluck().get());
    return { name, columns, primaryKey, indexes, orderedBy: scanOrder(indexes), rowCount };
  }

  return {
    /** Every table, or the listed ones (in the order given); unknown names are an error naming the known ones. */
    tables(only?: string[]): SourceTable[] {
      const all = tableNames();
      if (!only) return all.map(describe);
      const unknown = only.filter((name) => !all.includes(name));
      if (unknown.length > 0) throw new Error(`No table ${unknown.join(', ')} in ${file}; it has: ${all.join(', ')}`);
      return only.map(describe);
    },
    /** Rows of a table as arrays in column order, coerced to each column's kind, in scan order. */
    *rows(table: SourceTable): Generator<LoadValue[]> {
      const order = table.orderedBy ? ` ORDER BY ${table.orderedBy.columns.map(quoteIdentifier).join(', ')}` : '';
      // rowid keeps an unindexed table in insertion order (WITHOUT ROWID tables have a key order anyway).
      const statement = db.prepare(`SELECT ${table.columns.map((column) => quoteIdentifier(column.name)).join(', ')} FROM ${quoteIdentifier(table.name)}${order}`);
      // safeIntegers: 64-bit integers survive as bigint instead of losing precision past 2^53.
      let rowNumber = 0;
      for (const raw of statement.raw(true).safeIntegers(true).iterate() as Iterable<unknown[]>) {
        rowNumber++;
        const row = new Array<LoadValue>(raw.length);
        for (let i = 0; i < raw.length; i++) row[i] = coerce(raw[i], table.columns[i]!, table.name, rowNumber);
        yield row;
      }
    },
    close: () => db.close(),
  };
}

export type Source = ReturnType<typeof openSource>;

/**
 * The widest index with "reconcile" in its name (ties: the first defined), so targets store rows
 * in the order reconciliation scans and merges read them (DuckDB/Parquet zone maps prune better,
 * and the scan comes out sorted). Null when there is none.
 */
function scanOrder(indexes: SourceIndex[]): SourceTable['orderedBy'] {
  let best: SourceIndex | undefined;
  for (const index of indexes) {
    if (!/reconcile/i.test(index.name) || index.columns.length === 0) continue;
    if (!best || index.columns.length > best.columns.length) best = index;
  }
  return best ? { index: best.name, columns: best.columns } : null;
}

/** SQLite is loosely typed: convert what it stored to the column's kind, or say where it cannot. */
function coerce(value: unknown, column: SourceColumn, table: string, rowNumber: number): LoadValue {
  if (value === null || value === undefined) return null;
  const fail = (): never => {
    throw new Error(`Table ${table}, row ${rowNumber}, column ${column.name} (${column.declaredType}): cannot store ${JSON.stringify(String(value)).slice(0, 60)} as ${column.kind}`);
  };
  switch (column.kind) {
    case 'text':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'bigint') return String(value);
      return fail();
    case 'double':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint') return Number(value);
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return fail();
    case 'bigint':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return BigInt(value.trim());
      return fail();
    case 'blob':
      if (Buffer.isBuffer(value)) return value;
      if (typeof value === 'string') return Buffer.from(value, 'utf8');
      return fail();
  }
}
