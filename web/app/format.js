/**
 * Number and text formatting shared by the tables, charts and answers.
 */

const formatters = new Map();

function formatter(locale, digits) {
  const key = `${locale}|${digits}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    formatters.set(key, format);
  }
  return format;
}

/** Decimal places a column needs: 2 when any value has a fraction, otherwise 0. */
export function columnDigits(values) {
  return values.some((value) => typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) ? 2 : 0;
}

/** A number with thousands separators (`443,100`, `-1,234.50`); anything else as text. */
export function formatNumber(value, { locale = 'en-US', digits } = {}) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return formatValue(value);
  const places = digits ?? (Number.isInteger(value) ? 0 : 2);
  return formatter(locale, places).format(value);
}

/** A percentage (`24.8%`). */
export function formatPercent(value, { locale = 'en-US' } = {}) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return formatValue(value);
  return `${formatter(locale, 1).format(value)}%`;
}

/** A duration in milliseconds (`7.9 ms`, `1.2 s`). */
export function formatDuration(ms, { locale = 'en-US' } = {}) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  return ms < 1000 ? `${formatter(locale, ms < 10 ? 1 : 0).format(ms)} ms` : `${formatter(locale, 1).format(ms / 1000)} s`;
}

/** Any cell value as text: blank for null, JSON for objects. */
export function formatValue(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `group_account` → `Group account`. */
export function humanize(name) {
  const text = String(name).replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
