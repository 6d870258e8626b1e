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
  /** The expression as text (for blank checks and filters; SQLite compares by its column's affinity). */
  text(expression: string): string;
  /**
   * A key value as text, the same text on every engine, for merges across engines: keys are
   * compared and ordered as text there (SQLite would order an INTEGER column by number).
   */
  keyText(expression: string): string;
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
  /**
   * Whether every value of a column has the column's type (DuckDB, PostgreSQL; a SQLite column may
   * hold both 1 and '1'), so a merge may group by the column instead of its text. The two differ
   * only for values the column holds equal but prints apart (citext 'A' and 'a', numeric 1.0 and
   * 1.00, -0 and 0): one key then, as bisection always took them.
   */
  typedColumns: boolean;
  /** Whether text can hold U+0000 (PostgreSQL's cannot: such a value matches no row and is never sent). */
  nulInText: boolean;
  /** A table as the FROM clause names it: quoted, or a derived table adding computed columns (periodColumns.ts). */
  table(name: string): string;
  /** The one-character text of a code point (a separator that needs no bound parameter). */
  character(code: number): string;
  /**
   * An amount as a whole number of 10^-decimals units, rounded as the row merge rounds (half up,
   * after a nudge of one epsilon away from zero), as a 64-bit integer: the same integer on every
   * engine, for checksums (bisection).
   */
  wholeUnits(expression: string, decimals: number): string;
  /**
   * Whether `A AND B` evaluates B only on the rows A lets through, so a cheap test placed first
   * spares a costly one (PostgreSQL, SQLite); DuckDB evaluated both on every row, which doubled
   * the cost of a hash tested in both.
   */
  conditionsInOrder: boolean;
  /** A number as a double (converted once, where wholeUnits would convert it at each use). */
  double(expression: string): string;
  /**
   * The sum of whole numbers whose total stays below 2^53, exact, in the engine's cheapest form:
   * PostgreSQL sums doubles with a state held by value, where a bigint sum keeps a 128-bit state
   * per group (16,000 groups of them spilled to disk at 10 M keys).
   */
  wholeSum(expression: string): string;
  /**
   * Appended to a subquery so it is computed once per row and not merged into the query around
   * it (which would evaluate its expressions, such as a hash, once per use).
   */
  fence: string;
  /**
   * The 64-bit key hash of bisection (keyHash.ts) of non-NULL text parts, a signed BIGINT:
   * PostgreSQL's hashtextextended(…, 0) of the parts joined by U+001F; SQLite and DuckDB call
   * `key_hash(…)`, which hashes the same bytes.
   */
  keyHash(parts: readonly string[]): string;
}

/**
 * Whole units as the row merge rounds in JavaScript (merges.ts), in double precision on every
 * engine: Math.round((v + sign(v)·ε)·10^d) = floor((v + sign(v)·ε)·10^d + 0.5). Equal units then
 * mean equal rounded amounts, so a segment whose checksums agree hides no difference.
 */
const jsRounding = (value: string, decimals: number, double: (literal: string) => string = (literal) => literal) =>
  `floor((${value} + CASE WHEN ${value} < 0 THEN ${double(`-${Number.EPSILON}`)} WHEN ${value} > 0 THEN ${double(String(Number.EPSILON))} ELSE ${double('0')} END) * ${10 ** decimals} + 0.5)`;

/**
 * A PostgreSQL array literal of texts, each quoted with its quotes and backslashes escaped: how a
 * list travels as one plain parameter (`CAST($1 AS TEXT[])`).
 * @example
 * textArrayLiteral(['a', 'b"c']); // '{"a","b\\"c"}'
 */
export const textArrayLiteral = (values: readonly string[]) => `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

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
  keyText: (expression) => `CAST(${expression} AS TEXT)`,
  round: (expression, decimals) => `ROUND(${expression}, ${decimals})`,
  // SQLite's defaults already are NULL first ascending; leaving them implicit keeps its index-ordered plans.
  ascending: (expression) => `${expression} ASC`,
  descending: (expression) => `${expression} DESC`,
  binaryAscending: (expression) => `${expression} ASC`,
  distinctValuesJson: (expression) => `json_group_array(DISTINCT ${expression})`,
  materialized: 'MATERIALIZED ',
  orderedMerge: true,
  typedColumns: false,
  nulInText: true,
  table: quoteIdentifier,
  character: (code) => `char(${code})`,
  // CAST to INTEGER truncates toward zero in SQLite.
  wholeUnits: (expression, decimals) => `CAST(${jsRounding(`(${expression})`, decimals)} AS INTEGER)`,
  conditionsInOrder: true,
  // SQLite needs no conversion: wholeUnits' arithmetic (a REAL nudge) makes any number a double.
  double: (expression) => expression,
  wholeSum: (expression) => `SUM(${expression})`,
  fence: ' LIMIT -1 OFFSET 0',
  // One text argument: SQLite joins faster than a call with several arguments converts them.
  keyHash: (parts) => `key_hash(${parts.length ? parts.join(' || char(31) || ') : "''"})`,
};

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  parameter: () => '?',
  textParameter: (marker) => `CAST(${marker} AS VARCHAR)`,
  notDistinct: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  distinct: (left, right) => `${left} IS DISTINCT FROM ${right}`,
  text: (expression) => `CAST(${expression} AS VARCHAR)`,
  keyText: (expression) => `CAST(${expression} AS VARCHAR)`,
  round: (expression, decimals) => `ROUND(${expression}, ${decimals})`,
  ascending: (expression) => `${expression} ASC NULLS FIRST`,
  descending: (expression) => `${expression} DESC NULLS LAST`,
  binaryAscending: (expression) => `${expression} ASC NULLS FIRST`,
  distinctValuesJson: (expression) => `to_json(list(DISTINCT ${expression}))`,
  materialized: 'MATERIALIZED ',
  orderedMerge: false,
  typedColumns: true,
  nulInText: true,
  table: quoteIdentifier,
  character: (code) => `chr(${code})`,
  wholeUnits: (expression, decimals) => `CAST(${jsRounding(`CAST(${expression} AS DOUBLE)`, decimals)} AS BIGINT)`,
  conditionsInOrder: false,
  double: (expression) => `CAST(${expression} AS DOUBLE)`,
  wholeSum: (expression) => `SUM(${expression})`,
  // DuckDB computes a common expression once by itself.
  fence: '',
  keyHash: (parts) => `key_hash(${parts.join(', ')})`,
};

export const postgresDialect: Dialect = {
  name: 'postgres',
  parameter: (position) => `$${position}`,
  textParameter: (marker) => `CAST(${marker} AS TEXT)`,
  notDistinct: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  distinct: (left, right) => `${left} IS DISTINCT FROM ${right}`,
  text: (expression) => `CAST(${expression} AS TEXT)`,
  keyText: (expression) => `CAST(${expression} AS TEXT)`,
  round: (expression, decimals) => `ROUND(CAST(${expression} AS NUMERIC), ${decimals})`,
  ascending: (expression) => `${expression} ASC NULLS FIRST`,
  descending: (expression) => `${expression} DESC NULLS LAST`,
  binaryAscending: (expression) => `${expression} COLLATE "C" ASC NULLS FIRST`,
  distinctValuesJson: (expression) => `json_agg(DISTINCT ${expression})`,
  materialized: 'MATERIALIZED ',
  orderedMerge: false,
  typedColumns: true,
  nulInText: false,
  table: quoteIdentifier,
  character: (code) => `chr(${code})`,
  // A numeric total is rounded as the double JavaScript reads it. The nudge is typed: an untyped
  // 2.2e-16 is a numeric, and the CASE then converted every key's nudge to double (via text),
  // half of a 20 s pass over 10 M keys.
  wholeUnits: (expression, decimals) => `CAST(${jsRounding(`CAST(${expression} AS DOUBLE PRECISION)`, decimals, (literal) => `CAST(${literal} AS DOUBLE PRECISION)`)} AS BIGINT)`,
  conditionsInOrder: true,
  // numeric to double goes through text in PostgreSQL: once per key, not once per use.
  double: (expression) => `CAST(${expression} AS DOUBLE PRECISION)`,
  // Read back as bigint: a double's text is exact only with extra_float_digits > 0, a setting a role may change.
  wholeSum: (expression) => `CAST(SUM(CAST(${expression} AS DOUBLE PRECISION)) AS BIGINT)`,
  fence: ' OFFSET 0',
  // In C collation: under a nondeterministic one, the hash hashes the collation's sort key.
  keyHash: (parts) => `hashtextextended((${parts.length ? parts.join(' || chr(31) || ') : "''"}) COLLATE "C", 0)`,
};
