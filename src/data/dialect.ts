/**
 * What differs between SQL engines, as far as the compiler (compile.ts) cares: parameter
 * markers, NULL-safe comparison, collecting distinct values, materialised subqueries. A new
 * engine brings a dialect; skills and the compiler stay as they are.
 */

export interface Dialect {
  readonly name: string;
  /** The marker of the n-th bound parameter (1-based): `?` or `$1`. */
  parameter(position: number): string;
  /** `left` and `right` are equal, NULL equal to NULL. */
  notDistinct(left: string, right: string): string;
  /** `left` and `right` differ, NULL differing from any value. */
  distinct(left: string, right: string): string;
  /** An aggregate collecting the distinct values of an expression as a JSON array text. */
  distinctValuesJson(expression: string): string;
  /** Keyword that makes a CTE be computed once ('MATERIALIZED ' or ''). */
  materialized: string;
}

/** Quotes a catalog identifier. The catalog only admits [A-Za-z_][A-Za-z0-9_]*, so this cannot be escaped out of. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`refusing unsafe SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  parameter: () => '?',
  notDistinct: (left, right) => `${left} IS ${right}`,
  distinct: (left, right) => `${left} IS NOT ${right}`,
  distinctValuesJson: (expression) => `json_group_array(DISTINCT ${expression})`,
  materialized: 'MATERIALIZED ',
};
