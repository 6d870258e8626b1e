/**
 * Fiscal periods (YYYYPPP: 2024010 = October 2024; 013–016 are special periods) read the same
 * everywhere in the chat, in its locale: table cells, chart axes, comparison labels and CSV.
 * A catalog whose fiscal year starts in another month says so in each call's presentation
 * (`fiscal_year_start`: with 4, 2025001 is April 2025 and 2025010 January 2026); every function
 * here takes it as `fiscalYearStart` (default 1, January).
 *
 * Results do not say which dimension is of type period, so a value is read as a period only
 * when its dimension's name says so (`period`, `fiscal_period`, BW's `fiscper`) and the value
 * has the shape; anything else stays as it came (a wrong month is worse than a raw code).
 */
import { formatValue } from './format.js';

const PERIOD_CODE = /^(19\d\d|2\d\d\d)(0(?:0[1-9]|1[0-6]))$/;
const PERIOD_NAME = /period|fiscper/i;

/** The word for a special period (013–016) by language; other languages read "Period". */
const SPECIAL_PERIOD = { de: 'Periode', fr: 'Période', es: 'Período', it: 'Periodo', nl: 'Periode', pt: 'Período' };

const monthFormats = new Map();

function monthFormat(locale) {
  let format = monthFormats.get(locale);
  if (!format) {
    // UTC on both sides: the first of a month must not slip into the month before.
    format = new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' });
    monthFormats.set(locale, format);
  }
  return format;
}

/**
 * Whether `value` is a period code: a string YYYYPPP with PPP 001–016.
 * @param {unknown} value
 * @returns {boolean}
 */
export function isPeriodCode(value) {
  return typeof value === 'string' && PERIOD_CODE.test(value);
}

/**
 * Whether a dimension of this name holds periods (`period`, `posting_period`, `fiscper`).
 * @param {unknown} name
 * @returns {boolean}
 */
export function isPeriodName(name) {
  return typeof name === 'string' && PERIOD_NAME.test(name);
}

/**
 * A fiscal year's first calendar month (1–12) from what a presentation says; anything else is 1.
 * @param {unknown} value e.g. a presentation's `fiscal_year_start`
 * @returns {number}
 * @example
 * fiscalYearStartOf(4) // 4
 * fiscalYearStartOf('4') // 1 (the contract sends an integer)
 */
export function fiscalYearStartOf(value) {
  return Number.isInteger(value) && value >= 1 && value <= 12 ? value : 1;
}

/**
 * The calendar month of a regular period as a UTC timestamp; undefined for special periods and
 * non-codes. Period 1 is the fiscal year's first month; the fiscal year is named by the year it
 * starts in, so with a start in April 2025010 is January 2026.
 */
function monthOf(code, fiscalYearStart) {
  const match = PERIOD_CODE.exec(code);
  if (!match) return undefined;
  const period = Number(match[2]);
  // Date.UTC carries a month past December into the next year.
  return period <= 12 ? Date.UTC(Number(match[1]), period - 1 + fiscalYearStartOf(fiscalYearStart) - 1, 1) : undefined;
}

/**
 * A period for readers: `2024010` → `October 2024` (de-DE `Oktober 2024`); special periods
 * `2024013` → `Period 13 2024` (de `Periode 13 2024`). Anything that is not a code comes back as is.
 * @param {unknown} code
 * @param {{locale?: string, fiscalYearStart?: number}} [options]
 * @returns {string}
 * @example
 * formatPeriod('2025001') // 'January 2025'
 * formatPeriod('2025001', { fiscalYearStart: 4 }) // 'April 2025'
 */
export function formatPeriod(code, { locale = 'en-US', fiscalYearStart = 1 } = {}) {
  if (!isPeriodCode(code)) return code === null || code === undefined ? '' : String(code);
  const month = monthOf(code, fiscalYearStart);
  if (month !== undefined) return monthFormat(locale).format(month);
  const word = SPECIAL_PERIOD[locale.split('-')[0].toLowerCase()] ?? 'Period';
  return `${word} ${Number(code.slice(4))} ${code.slice(0, 4)}`;
}

/**
 * An inclusive span of periods: `October – December 2024` (the locale decides how a range is
 * written); one open end reads `from October 2024` / `to December 2024`.
 * @param {unknown} from
 * @param {unknown} to
 * @param {{locale?: string, fiscalYearStart?: number}} [options]
 * @returns {string}
 * @example
 * formatPeriodRange('2025001', '2025012', { fiscalYearStart: 4 }) // 'April 2025 – March 2026'
 */
export function formatPeriodRange(from, to, { locale = 'en-US', fiscalYearStart = 1 } = {}) {
  const options = { locale, fiscalYearStart };
  const hasFrom = from !== undefined && from !== null;
  const hasTo = to !== undefined && to !== null;
  if (!hasTo) return `from ${formatPeriod(from, options)}`;
  if (!hasFrom) return `to ${formatPeriod(to, options)}`;
  if (from === to) return formatPeriod(from, options);
  const start = monthOf(from, fiscalYearStart);
  const end = monthOf(to, fiscalYearStart);
  if (start !== undefined && end !== undefined && start < end) return monthFormat(locale).formatRange(start, end);
  return `${formatPeriod(from, options)} – ${formatPeriod(to, options)}`;
}

/**
 * A dimension's value as a reader sees it: periods of a period dimension formatted, anything
 * else as text (blank for null).
 * @param {string} dimension the dimension's name
 * @param {unknown} value
 * @param {{locale?: string, fiscalYearStart?: number}} [options]
 * @returns {string}
 */
export function formatDimensionValue(dimension, value, { locale = 'en-US', fiscalYearStart = 1 } = {}) {
  if (isPeriodName(dimension) && isPeriodCode(value)) return formatPeriod(value, { locale, fiscalYearStart });
  return formatValue(value);
}
