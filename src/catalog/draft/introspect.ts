/**
 * Reads what a catalog draft needs from an existing database, with a few bounded, read-only
 * statements per table: the tables (per-engine SQL: sqlite_master, or information_schema.tables
 * of the current schema), each table's columns and declared types, the row count, the distinct
 * and non-NULL count of every column, and each column's most frequent values. Tables larger than
 * the sample size are profiled on their first N rows (a subquery with LIMIT), so a drafted
 * warehouse costs a bounded amount of work whatever its size.
 */
import type { Engine, EngineKind } from '../../data/engines/engine.ts';
import { quoteIdentifier } from '../../data/dialect.ts';

/** How a column's type reads, whatever the engine calls it. */
export type ColumnKind = 'text' | 'integer' | 'decimal' | 'date' | 'boolean' | 'other';

export interface ColumnProfile {
  column: string;
  /** The type as the database declares it (TEXT, VARCHAR, double precision, …). */
  declaredType: string;
  kind: ColumnKind;
  /** Distinct non-NULL values (in the sample). */
  distinct: number;
  /** Rows where the column is not NULL (in the sample). */
  nonNull: number;
  /** The most frequent values, most frequent first, ties in ascending (byte) order; plain JS values. */
  top: { value: unknown; count: number }[];
}

export interface TableProfile {
  table: string;
  /** Rows profiled: the table's row count, or the sample size when the table is larger. */
  rows: number;
  /** True when the table has more rows than the sample and only its first `rows` rows were read. */
  sampled: boolean;
  columns: ColumnProfile[];
  /** Columns left out, with the reason (unsupported type, name that is not a plain identifier). */
  skipped: { column: string; reason: string }[];
}

/** Most frequent values read per column (the draft keeps up to five as examples). */
const TOP_VALUES = 20;
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The tables and views of the database (of its current schema), sorted in byte order.
 * @example
 * await listTables(engine); // ['bpc_reporting', 'consolidation_mart', 'fi_acquisition', …]
 */
export async function listTables(engine: Engine): Promise<string[]> {
  const sql: Record<EngineKind, string> = {
    sqlite: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    duckdb: 'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_catalog = current_database()',
    postgres: 'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()',
  };
  const rows = await engine.all(sql[engine.kind], []);
  return rows.map((row) => String(row[0])).sort(byteOrder);
}

/**
 * Column names and declared types of a table, in table order; undefined when there is no such table.
 * @example
 * await columnTypes(engine, 'fi_reporting'); // [{ column: 'compcode', declaredType: 'TEXT' }, …]
 */
async function columnTypes(engine: Engine, table: string): Promise<{ column: string; declaredType: string }[] | undefined> {
  const sql: Record<EngineKind, string> = {
    sqlite: 'SELECT name, type FROM pragma_table_info(?) ORDER BY cid',
    duckdb: 'SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? AND table_schema = current_schema() AND table_catalog = current_database() ORDER BY ordinal_position',
    postgres: 'SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position',
  };
  const rows = await engine.all(sql[engine.kind], [table]);
  return rows.length > 0 ? rows.map((row) => ({ column: String(row[0]), declaredType: String(row[1] ?? '') })) : undefined;
}

/**
 * The kind of a declared type, across SQLite affinities, DuckDB and PostgreSQL type names.
 * @example
 * kindOfType('double precision'); // 'decimal'
 * kindOfType('VARCHAR'); // 'text'
 */
function kindOfType(declared: string): ColumnKind | undefined {
  const type = declared.trim().toUpperCase();
  if (type === '') return undefined;
  if (/BOOL/.test(type)) return 'boolean';
  if (/INTERVAL|POINT|JSON|BLOB|BYTEA|ARRAY|STRUCT|MAP|\[\]|UNION|LIST/.test(type)) return 'other';
  if (/^(DATE|TIMESTAMP|DATETIME)/.test(type)) return 'date';
  if (/INT/.test(type)) return 'integer';
  if (/CHAR|CLOB|TEXT|STRING|UUID|CITEXT|^NAME$/.test(type)) return 'text';
  if (/REAL|FLOA|DOUB|DEC|NUM|MONEY/.test(type)) return 'decimal';
  return 'other';
}

/**
 * Profiles one table with bounded aggregate queries (see the module comment).
 * @example
 * const profile = await profileTable(engine, 'fi_reporting', { sampleRows: 100_000 });
 * profile.columns.find((c) => c.column === 'ac_docnr')?.distinct; // 1174
 */
export async function profileTable(engine: Engine, table: string, options: { sampleRows: number }): Promise<TableProfile> {
  const declared = await columnTypes(engine, table);
  if (!declared) throw new Error(`table '${table}' does not exist`);
  const quotedTable = quoteIdentifier(table);
  const limit = Math.max(1, Math.floor(options.sampleRows));
  const [[counted]] = (await engine.all(`SELECT COUNT(*) FROM (SELECT 1 AS one FROM ${quotedTable} LIMIT ${limit + 1}) AS bounded`, [])) as [[unknown]];
  const sampled = Number(counted) > limit;
  const rows = Math.min(Number(counted), limit);
  const from = sampled ? `(SELECT * FROM ${quotedTable} LIMIT ${limit}) AS sampled` : quotedTable;

  const skipped: TableProfile['skipped'] = [];
  const usable: { column: string; declaredType: string; kind: ColumnKind | undefined }[] = [];
  for (const { column, declaredType } of declared) {
    if (!PLAIN_IDENTIFIER.test(column)) {
      skipped.push({ column, reason: 'not a plain SQL identifier (letters, digits, underscore); the catalog cannot name it' });
      continue;
    }
    const kind = kindOfType(declaredType);
    if (kind === 'other') {
      skipped.push({ column, reason: `type ${declaredType} is neither text, number, date nor boolean` });
      continue;
    }
    usable.push({ column, declaredType, kind });
  }
  if (usable.length === 0) return { table, rows, sampled, columns: [], skipped };

  const counts = usable.flatMap(({ column }) => [`COUNT(DISTINCT ${quoteIdentifier(column)})`, `COUNT(${quoteIdentifier(column)})`]);
  const [countRow] = await engine.all(`SELECT ${counts.join(', ')} FROM ${from}`, []);
  const columns: ColumnProfile[] = [];
  for (const [index, { column, declaredType, kind }] of usable.entries()) {
    const quoted = quoteIdentifier(column);
    // Text in byte order on every engine (PostgreSQL's collation may differ); other types in their own order.
    const valueOrder = kind === 'text' || kind === undefined ? engine.dialect.binaryAscending(quoted) : `${quoted} ASC`;
    const topRows = await engine.all(`SELECT ${quoted}, COUNT(*) FROM ${from} WHERE ${quoted} IS NOT NULL GROUP BY ${quoted} ORDER BY COUNT(*) DESC, ${valueOrder} LIMIT ${TOP_VALUES}`, []);
    const top = topRows.map(([value, count]) => ({ value, count: Number(count) }));
    columns.push({
      column,
      declaredType,
      kind: refineKind(kind, top.map((t) => t.value)),
      distinct: Number(countRow![index * 2]),
      nonNull: Number(countRow![index * 2 + 1]),
      top,
    });
  }
  return { table, rows, sampled, columns, skipped };
}

/** SQLite stores what it is given: a declared number holding text is text, an untyped column is what its values are. */
function refineKind(kind: ColumnKind | undefined, values: unknown[]): ColumnKind {
  const numbers = values.length > 0 && values.every((value) => typeof value === 'number' || typeof value === 'bigint');
  if (kind === undefined) {
    if (!numbers) return 'text';
    return values.every((value) => Number.isInteger(Number(value))) ? 'integer' : 'decimal';
  }
  if ((kind === 'integer' || kind === 'decimal') && values.some((value) => typeof value === 'string')) return 'text';
  return kind;
}

/**
 * Byte order of two strings (the order of a C collation), independent of locale.
 * @example
 * ['b', 'B', 'a'].sort(byteOrder); // ['B', 'a', 'b']
 */
function byteOrder(a: string, b: string): number {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return Buffer.compare(left, right);
}
