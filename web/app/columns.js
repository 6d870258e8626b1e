/**
 * The columns of a result view and what their cells hold, as text for the table and as fields
 * for CSV, so the table, the chart and the CSV never disagree. A column is
 * `{key, label, kind, signedBy?, fiscalYearStart?}` with kind `text`, `number`, `percent`,
 * `period` or `status`; a period column of a catalog whose fiscal year does not start in January
 * says when it does (`fiscalYearStart: 4`: 2025001 reads April 2025).
 *
 * CSV keeps numbers raw (no separators; percentages signed like the table) and writes a period
 * column twice: as the table reads it (`October 2024`, in the chat's locale, which spreadsheet
 * programs also take as a date) and as its code (`Period code`: `2024010`, to join back to the
 * source data and to sort by).
 */
import { formatNumber, formatPercent, formatValue } from './format.js';
import { formatPeriod } from './periods.js';

/**
 * A cell's value: the row's field, with a percentage signed like its difference when the column
 * says `signedBy` (tools return how big a difference is relative to side A, without its sign).
 * @param {{key: string, kind?: string, signedBy?: string}} column
 * @param {Record<string, unknown>} row
 * @returns {unknown}
 */
export function cellValue(column, row) {
  const value = row[column.key];
  if (column.signedBy && typeof value === 'number') {
    const reference = row[column.signedBy];
    if (typeof reference === 'number' && reference !== 0) return Math.sign(reference) * Math.abs(value);
  }
  return value;
}

/**
 * A cell as the table shows it: `443,100`, `+24.8%`, `October 2024`, text as is ('' for blank).
 * @param {{key: string, kind?: string, signedBy?: string, fiscalYearStart?: number}} column
 * @param {Record<string, unknown>} row
 * @param {{locale?: string, digits?: number}} [options] digits: decimal places of a number column
 * @returns {string}
 */
export function cellText(column, row, { locale = 'en-US', digits } = {}) {
  const value = cellValue(column, row);
  switch (column.kind) {
    case 'number':
      return formatNumber(value, { locale, digits });
    case 'percent':
      return formatPercent(value, { locale, signed: Boolean(column.signedBy) });
    case 'period':
      return formatPeriod(value, { locale, fiscalYearStart: column.fiscalYearStart });
    default:
      return formatValue(value);
  }
}

/**
 * The columns of the CSV of a view: `[{label, value(row)}]` (a period column becomes two).
 * @param {Array<{key: string, label?: string, kind?: string, signedBy?: string, fiscalYearStart?: number}>} columns
 * @param {{locale?: string}} [options]
 * @returns {Array<{key: string, label: string, value: (row: Record<string, unknown>) => unknown}>}
 */
export function csvColumns(columns, { locale = 'en-US' } = {}) {
  return columns.flatMap((column) => {
    const label = column.label ?? column.key;
    if (column.kind === 'period') {
      return [
        { key: column.key, label, value: (row) => formatPeriod(row[column.key], { locale, fiscalYearStart: column.fiscalYearStart }) },
        { key: column.key, label: `${label} code`, value: (row) => row[column.key] },
      ];
    }
    return [{ key: column.key, label, value: (row) => cellValue(column, row) }];
  });
}
