/**
 * Which period notation a column holds, read from its type and its most frequent values, never
 * from its name: YYYYPPP (2024012), YYYYMM (202412), YYYY-MM (2024-12), a date (DATE/TIMESTAMP,
 * or ISO text), and the two halves of a split period: a fiscal year (2024) and a period number
 * (1..16, `001`). The format names are the catalog's (schema.ts, `format` of a period dimension).
 */
import type { ColumnKind } from './introspect.ts';

/** A period dimension's format as the catalog declares it. */
export type PeriodFormat = 'YYYYPPP' | 'YYYYMM' | 'YYYY-MM' | 'date' | 'year_period';

const PATTERNS: [Exclude<PeriodFormat, 'year_period'>, RegExp][] = [
  ['YYYYPPP', /^(19|20)\d{2}0(0[1-9]|1[0-6])$/],
  ['YYYYMM', /^(19|20)\d{2}(0[1-9]|1[0-2])$/],
  ['YYYY-MM', /^(19|20)\d{2}-(0[1-9]|1[0-2])$/],
  ['date', /^(19|20)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ][\d:.]+(Z|[+-][\d:]+)?)?$/],
];

/**
 * The notation every value shares, or undefined (no values, or a mix, or none of them).
 * @example
 * periodFormatOf('text', ['2024001', '2024012']); // 'YYYYPPP'
 * periodFormatOf('integer', ['202412', '202501']); // 'YYYYMM'
 * periodFormatOf('date', []); // 'date'
 * periodFormatOf('integer', ['1000', '2000']); // undefined
 */
export function periodFormatOf(kind: ColumnKind, values: readonly string[]): Exclude<PeriodFormat, 'year_period'> | undefined {
  if (kind === 'date') return 'date';
  if ((kind !== 'text' && kind !== 'integer') || values.length === 0) return undefined;
  return PATTERNS.find(([, pattern]) => values.every((value) => pattern.test(value)))?.[0];
}

/**
 * Whether every value is a year (1900..2099): a fiscal-year column.
 * @example
 * isYearColumn('integer', ['2024', '2025']); // true
 */
export function isYearColumn(kind: ColumnKind, values: readonly string[]): boolean {
  return (kind === 'integer' || kind === 'text') && values.length > 0 && values.every((value) => /^(19|20)\d{2}$/.test(value));
}

/**
 * Whether every value is a period number of a fiscal year (1..16, written 1, 01 or 001).
 * @example
 * isPeriodNumberColumn('text', ['001', '012']); // true
 */
export function isPeriodNumberColumn(kind: ColumnKind, values: readonly string[]): boolean {
  return (kind === 'integer' || kind === 'text') && values.length > 0 && values.every((value) => /^0{0,2}([1-9]|1[0-6])$/.test(value));
}
