/**
 * CSV (RFC 4180): every field that holds a comma, quote, line break or leading/trailing space
 * is quoted, quotes doubled; lines end with CRLF. Numbers stay raw (no thousands separators),
 * text that a spreadsheet would run as a formula is prefixed with an apostrophe.
 */

const needsQuotes = /[",\r\n]|^\s|\s$/;
const formulaStart = /^[=+\-@\t\r]/;

/** One field. */
export function csvField(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (formulaStart.test(text)) text = `'${text}`;
  return needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A table as CSV: `columns` is `[{key, label, value?}]` (`value(row)` when given, else
 * `row[key]`; columns.js's csvColumns makes them for a view), `rows` are objects.
 */
export function toCsv(columns, rows) {
  const lines = [columns.map((column) => csvField(column.label ?? column.key)).join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvField(column.value ? column.value(row) : row[column.key])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A safe file name from free text: `totals`, `consolidation_mart ACTUAL`, `Oktober 2024` →
 * `totals-consolidation_mart-ACTUAL-Oktober-2024.csv`. Accents are dropped (`März` → `Marz`),
 * anything else outside `A-Z a-z 0-9 . _ -` becomes a dash; never starts with a dot or dash.
 * @param {...unknown} parts
 * @returns {string}
 */
export function csvFileName(...parts) {
  const base = parts
    .filter((part) => part !== undefined && part !== null && part !== '')
    .join('-')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100)
    .replace(/[-.]+$/, '');
  return `${base || 'result'}.csv`;
}
