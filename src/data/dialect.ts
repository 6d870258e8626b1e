/**
 * What differs between SQL engines, as far as the compiler (compile.ts) cares: parameter
 * markers, NULL-safe comparison, text casts, rounding, NULL ordering, collecting distinct
 * values, materialised subqueries. A new engine brings a dialect; skills and the compiler stay
 * as they are.
 */

export interface Dialect {
  readonly name: 'sqlite' | 'duckdb' | 'postgres';
  /** The marker of the n-th bound parameter (1-based): `?` or `$1`. */
  parameter(position: number): string;
  /** A bound parameter used as a text value where the engine cannot infer its type (a constant key). */
  textParameter(marker: string): string;
  /** `left` and `right` are equal, NULL equal to NULL. */
  notDistinct(left: string, right: string): string;
  /** `left` and `right` differ, NULL differing from any value. */
  distinct(left: string, right: string): string;
  /** The expression as text (for blank checks and for key order shared across engines). */
  text(expression: string): string;
  /** Rounded to `decimals` places (PostgreSQL rounds only numerics). */
  round(expression: string, decimals: number): string;
  /** Sort terms with SQLite's NULL order (NULL first ascending), which every engine then shares. */
  ascending(expression: string): string;
  descending(expression: string): string;
  /** A sort term on text in byte order, whatever the database's collation (for merges across engines). */
  binaryAscending(expression: string): string;
  /** An aggregate collecting the distinct values of an expression as a JSON array (text or parsed). */
  distinctValuesJson(expression: string): string;
  /** Keyword that makes a CTE be computed once ('MATERIALIZED ' or ''). */
  materialized: string;
  /**
   * Whether a merge should stack and group its sides in key order. SQLite then merges two index
   * scans without sorting; hash-aggregating engines (DuckDB, PostgreSQL) are faster unordered.
   */
  orderedMerge: boolean;
  /** Whether text can hold U+0000 (PostgreSQL's cannot: such a value matches no row and is never sent). */
  nulInText: boolean;
  /** A table as the FROM clause names it: quoted, or a derived table adding computed columns (periodColumns.ts). */
  table(name: string): string;
}

/** Quotes a catalog identifier. The catalog only admits [A-Za-z_][A-Za-z0-9_]*, so this cannot be escaped out of. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`refusing unsafe SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  parameter: () => '?',
  textParameter: (marker) => marker,
  notDistinct: (left, right) => `${left} IS ${right}`,
  distinct: (left, right) => `${left} IS NOT ${right}`,
  text: (expression) => expression,
  round: (expression, decimals) => `ROUND(${expression}, ${decimals})`,
  // SQLite's defaults already are NULL first ascending; leaving them implicit keeps its index-ordered plans.
  ascending: (expression) => `${expression} ASC`,
  descending: (expression) => `${expression} DESC`,
  binaryAscending: (expression) => `${expression} ASC`,
  distinctValuesJson: (expression) => `json_group_array(DISTINCT ${expression})`,
  materialized: 'MATERIALIZED ',
  orderedMerge: true,
  nulInText: true,
  table: quoteIdentifier,
};

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  parameter: () => '?',
  textParameter: (marker) => `CAST(${marker} AS VARCHAR)`,
  notDistinct: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  distinct: (left, right) => `${left} IS DISTINCT FROM ${right}`,
  text: (expression) => `CAST(${expression} AS VARCHAR)`,
  round: (expression, decimals) => `ROUND(${expression}, ${decimals})`,
  ascending: (expression) => `${expression} ASC NULLS FIRST`,
  descending: (expression) => `${expression} DESC NULLS LAST`,
  binaryAscending: (expression) => `${expression} ASC NULLS FIRST`,
  distinctValuesJson: (expression) => `to_json(list(DISTINCT ${expression}))`,
  materialized: 'MATERIALIZED ',
  orderedMerge: false,
  nulInText: true,
  table: quoteIdentifier,
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  parameter: (position) => `$${position}`,
  textParameter: (marker) => `CAST(${marker} AS TEXT)`,
  notDistinct: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  distinct: (left, right) => `${left} IS DISTINCT FROM ${right}`,
  text: (expression) => `CAST(${expression} AS TEXT)`,
  round: (expression, decimals) => `ROUND(CAST(${expression} AS NUMERIC), ${decimals})`,
  ascending: (expression) => `${expression} ASC NULLS FIRST`,
  descending: (expression) => `${expression} DESC NULLS LAST`,
  binaryAscending: (expression) => `${expression} COLLATE "C" ASC NULLS FIRST`,
  distinctValuesJson: (expression) => `json_agg(DISTINCT ${expression})`,
  materialized: 'MATERIALIZED ',
  orderedMerge: false,
  nulInText: false,
  table: quoteIdentifier,
};
