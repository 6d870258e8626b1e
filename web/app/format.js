/**
 * Number and text formatting shared by the tables, charts and answers, in the chat's locale.
 */

const formatters = new Map();

function formatter(locale, digits, style = 'decimal', signed = false) {
  const key = `${locale}|${digits}|${style}|${signed}`;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style, minimumFractionDigits: digits, maximumFractionDigits: digits, ...(signed ? { signDisplay: 'exceptZero' } : {}) });
    formatters.set(key, format);
  }
  return format;
}

/**
 * `tag` as a canonical BCP 47 locale (`de-de` → `de-DE`), or undefined when it is missing or not
 * a tag Intl accepts (an embedding's typo such as `de_DE` must not break the chat: it formats in
 * en-US then).
 * @param {unknown} tag
 * @returns {string | undefined}
 */
export function canonicalLocale(tag) {
  if (typeof tag !== 'string' || !tag) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
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

/**
 * A percentage with one decimal in the locale's style (`24.8%`, de-DE `24,8 %`); `signed` always
 * shows the sign (`+24.8%`, `-2.2%`), as a difference percentage should.
 * @param {unknown} value percent points (24.8, not 0.248)
 * @param {{locale?: string, signed?: boolean}} [options]
 */
export function formatPercent(value, { locale = 'en-US', signed = false } = {}) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return formatValue(value);
  return formatter(locale, 1, 'percent', signed).format(value / 100);
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
