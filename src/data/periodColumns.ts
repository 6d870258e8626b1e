/**
 * Periods as the data holds them. The service reads and writes periods as fiscal YYYYPPP
 * (2025003: period 3 of fiscal year 2025) everywhere: filters, ranges, quarters, movements,
 * answers. A table that holds them otherwise (YYYYMM, YYYY-MM, a date, or fiscal year and
 * period in two columns; a fiscal year that starts in April) gets a computed column with the
 * YYYYPPP value, declared by the catalog on its connection (ConnectionSpec.computed), and the
 * compiler reads such a table through a derived table that adds it:
 *
 *   FROM (SELECT *, printf('%07d', …) AS "__period_yyyyppp" FROM "gl_extract") AS "gl_extract"
 *
 * so every query, on every engine, is written as if the column were stored. The expression is
 * built here from the declared format and plain identifiers, never from text a user sent.
 */
import { quoteIdentifier, type Dialect } from './dialect.ts';

/** The notations a period column may have; YYYYPPP needs no computed column. */
export type PeriodFormat = 'YYYYPPP' | 'YYYYMM' | 'YYYY-MM' | 'date' | 'year_period';

/** How one table holds its periods. */
export interface PeriodColumn {
  format: Exclude<PeriodFormat, 'YYYYPPP'> | 'YYYYPPP';
  /** The column holding the period (YYYYMM, YYYY-MM, a date, or the period number for year_period). */
  column: string;
  /** year_period: the column holding the fiscal year. */
  yearColumn?: string | undefined;
  /** The calendar month the fiscal year starts in (1 = January); the year is named by its start. */
  fiscalYearStart: number;
}

/** Computed columns by table, then by column name. */
export type ComputedColumns = Record<string, Record<string, PeriodColumn>>;

/**
 * The name of the computed YYYYPPP column for a period dimension.
 *
 * @example
 * canonicalColumnName('period') // '__period_yyyyppp'
 */
export function canonicalColumnName(dimension: string): string {
  return `__${dimension}_yyyyppp`;
}

/**
 * Whether a period column must be computed: any format but YYYYPPP, or YYYYPPP in a calendar
 * whose periods are not already fiscal (never: YYYYPPP periods are fiscal by definition).
 */
export function needsComputedColumn(period: PeriodColumn): boolean {
  return period.format !== 'YYYYPPP';
}

/**
 * The SQL expression giving a period column's fiscal YYYYPPP value as seven characters of text.
 *
 * @example
 * canonicalPeriodSql({ format: 'YYYYMM', column: 'gjahr_monat', fiscalYearStart: 1 }, 'sqlite')
 * // printf('%07d', (CAST("gjahr_monat" AS INTEGER) / 100) * 1000 + (CAST("gjahr_monat" AS INTEGER) % 100))
 */
export function canonicalPeriodSql(period: PeriodColumn, dialect: Dialect['name']): string {
  const column = quoteIdentifier(period.column);
  const integer = (expression: string) => `CAST(${expression} AS ${dialect === 'duckdb' ? 'BIGINT' : 'INTEGER'})`;
  const divide = (expression: string, by: number) => (dialect === 'duckdb' ? `(${expression} // ${by})` : `(${expression} / ${by})`);
  const text = (expression: string) => `CAST(${expression} AS ${dialect === 'sqlite' ? 'TEXT' : dialect === 'duckdb' ? 'VARCHAR' : 'TEXT'})`;
  let year: string;
  let month: string;
  switch (period.format) {
    case 'YYYYPPP':
      return text(column);
    case 'year_period':
      // Already fiscal: the year and the period number as they stand.
      return padded(`${integer(quoteIdentifier(period.yearColumn!))} * 1000 + ${integer(column)}`, dialect);
    case 'YYYYMM':
      year = divide(integer(column), 100);
      month = `(${integer(column)} % 100)`;
      break;
    case 'YYYY-MM':
      year = integer(`substr(${text(column)}, 1, 4)`);
      month = integer(`substr(${text(column)}, 6, 2)`);
      break;
    case 'date':
      year = dialect === 'sqlite' ? integer(`strftime('%Y', ${column})`) : integer(`EXTRACT(YEAR FROM CAST(${column} AS DATE))`);
      month = dialect === 'sqlite' ? integer(`strftime('%m', ${column})`) : integer(`EXTRACT(MONTH FROM CAST(${column} AS DATE))`);
      break;
  }
  const start = period.fiscalYearStart;
  if (start === 1) return padded(`${year} * 1000 + ${month}`, dialect);
  // A fiscal year from April: April 2025 is period 1 of 2025, March 2026 period 12 of 2025.
  return padded(`CASE WHEN ${month} >= ${start} THEN ${year} * 1000 + ${month} - ${start - 1} ELSE (${year} - 1) * 1000 + ${month} + ${13 - start} END`, dialect);
}

function padded(expression: string, dialect: Dialect['name']): string {
  return dialect === 'postgres' ? `lpad(CAST(${expression} AS TEXT), 7, '0')` : `printf('%07d', ${expression})`;
}

/**
 * The dialect with its table references reading computed columns (derived tables); the
 * dialect as it is when no table of the connection has one.
 *
 * @example
 * const dialect = withComputedColumns(sqliteDialect, { gl: { __period_yyyyppp: { format: 'YYYYMM', column: 'monat', fiscalYearStart: 1 } } });
 * dialect.table('gl') // (SELECT *, printf(…) AS "__period_yyyyppp" FROM "gl") AS "gl"
 */
export function withComputedColumns(dialect: Dialect, computed: ComputedColumns | undefined): Dialect {
  const tables = Object.entries(computed ?? {}).filter(([, columns]) => Object.keys(columns).length > 0);
  if (tables.length === 0) return dialect;
  const references = new Map(
    tables.map(([table, columns]) => {
      const added = Object.entries(columns).map(([name, period]) => `${canonicalPeriodSql(period, dialect.name)} AS ${quoteIdentifier(name)}`);
      return [table, `(SELECT *, ${added.join(', ')} FROM ${quoteIdentifier(table)}) AS ${quoteIdentifier(table)}`];
    }),
  );
  return { ...dialect, table: (name) => references.get(name) ?? quoteIdentifier(name) };
}
