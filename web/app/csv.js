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

/** A table as CSV: `columns` is `[{key, label}]`, `rows` are objects. */
export function toCsv(columns, rows) {
  const lines = [columns.map((column) => csvField(column.label ?? column.key)).join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvField(row[column.key])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name from free text: `query_source fi_reporting` → `query_source-fi_reporting.csv`. */
export function csvFileName(...parts) {
  const base = parts
    .filter(Boolean)
    .join('-')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${base || 'result'}.csv`;
}
