/**
 * The close board's words and chart series, made from what the close tools answer (list_checks,
 * check_history): status words, differences per currency, open items with their age, sign-offs,
 * schedules and the trend of a check's difference. Pure functions without the DOM, so the
 * board's rows, its history panel and the unit tests (test/web/board.test.ts) read them alike.
 */
import { formatNumber } from '../format.js';

/** A check's status as words (never colour alone) and a shape that tells them apart at a glance. */
const STATUSES = {
  tie: { words: 'Tie', symbol: '✓' },
  within_tolerance: { words: 'Within tolerance', symbol: '≈' },
  break: { words: 'Break', symbol: '✕' },
  error: { words: 'Error', symbol: '!' },
  never_run: { words: 'Never run', symbol: '–' },
};

/**
 * Words and symbol for a status; an unknown one (a newer service) reads as itself.
 * @param {unknown} status tie, within_tolerance, break, error or never_run
 * @returns {{status: string, words: string, symbol: string}} status: safe as a class name part
 * @example
 * statusLabel('within_tolerance') // { status: 'within_tolerance', words: 'Within tolerance', symbol: '≈' }
 */
export function statusLabel(status) {
  const known = STATUSES[status];
  const text = String(status ?? 'unknown');
  return { status: known ? status : 'unknown', words: known?.words ?? text.replace(/_/g, ' '), symbol: known?.symbol ?? '?' };
}

/**
 * An amount with two decimals and its currency, as the chat's answers write it.
 * @param {number} value
 * @param {string | undefined} currency
 * @param {{locale?: string}} [options]
 * @returns {string}
 * @example
 * formatAmount(110000, 'EUR') // '110,000.00 EUR'
 */
export function formatAmount(value, currency, { locale = 'en-US' } = {}) {
  const amount = formatNumber(value, { locale, digits: 2 });
  return currency ? `${amount} ${currency}` : amount;
}

/**
 * The last run's differences as lines: one per currency, prefixed with the period when the run
 * covered several (a year-to-date check).
 * @param {Array<{period: string, currency?: string, difference: number}>} differences
 * @param {{locale?: string}} [options]
 * @returns {Array<{text: string, zero: boolean}>}
 * @example
 * differenceLines([{ period: '2024-12', currency: 'EUR', difference: 110000 }]) // [{ text: '110,000.00 EUR', zero: false }]
 */
export function differenceLines(differences, { locale = 'en-US' } = {}) {
  const periods = new Set(differences.map((difference) => difference.period));
  return differences.map((difference) => {
    const amount = formatAmount(difference.difference, difference.currency, { locale });
    return { text: periods.size > 1 ? `${difference.period}: ${amount}` : amount, zero: difference.difference === 0 };
  });
}

/**
 * How long a difference has been open, in days.
 * @param {number | null | undefined} days
 * @returns {string}
 * @example
 * ageText(34) // '34 days'
 */
export function ageText(days) {
  if (typeof days !== 'number' || !Number.isFinite(days)) return 'unknown';
  if (days < 1) return 'under a day';
  return `${days} ${days === 1 ? 'day' : 'days'}`;
}

/**
 * Open items of a check in a few words.
 * @param {number} count
 * @param {number | null} oldestDays
 * @returns {string}
 * @example
 * openItemsText(3, 34) // '3 open, oldest 34 days'
 */
export function openItemsText(count, oldestDays) {
  if (!count) return 'None open';
  return `${count} open, oldest ${ageText(oldestDays)}`;
}

/**
 * A period's sign-off as a line.
 * @param {{period: string, state: string, by: string}} signoff
 * @returns {string}
 * @example
 * signoffText({ period: '2024-12', state: 'signed', by: 'controller' }) // '2024-12 signed off by controller'
 */
export function signoffText(signoff) {
  if (signoff.state === 'reopened') return `${signoff.period} re-opened (signed off by ${signoff.by} before the figures changed)`;
  return `${signoff.period} signed off by ${signoff.by}`;
}

const dateFormats = new Map();

/**
 * A moment as a reader's date and time (`Dec 3, 2024, 7:00 AM`), in the browser's time zone.
 * @param {string | null | undefined} iso
 * @param {{locale?: string, timeZone?: string, seconds?: boolean}} [options] timeZone: for the
 *   tests; seconds: to tell apart runs of the same minute
 * @returns {string} blank for no time
 */
export function formatDateTime(iso, { locale = 'en-US', timeZone, seconds = false } = {}) {
  const time = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(time)) return '';
  const key = `${locale}|${timeZone ?? ''}|${seconds}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short', ...(timeZone ? { timeZone } : {}) });
    dateFormats.set(key, format);
  }
  return format.format(time);
}

/** Runs' times along a chart's axis, with seconds when two runs share a minute (a run by hand after a scheduled one). */
function runLabels(runs, options) {
  const labels = runs.map((at) => formatDateTime(at, options));
  return new Set(labels).size === labels.length ? labels : runs.map((at) => formatDateTime(at, { ...options, seconds: true }));
}

/** Words for what started a run. */
export const triggerText = (trigger) => (trigger === 'schedule' ? 'Scheduled' : trigger === 'manual' ? 'By hand' : String(trigger ?? ''));

/**
 * The trend of a check's difference as line charts for charts.js: one chart per currency (amounts
 * in different currencies never share an axis), the runs oldest first along it. A run that
 * compared one period gives one line per currency (a previous_month check compares another
 * month each time: the axis names it); runs of several periods (year to date) a line per period.
 * @param {Array<{at: string, period: string, currency?: string, difference: number}>} trend oldest first
 * @param {{locale?: string, timeZone?: string}} [options]
 * @returns {Array<{type: 'line', currency: string, unit?: string, label: string, labels: string[], datasets: Array<{label: string, data: Array<number | null>}>}>}
 * @example
 * trendCharts([{ at: '2024-12-03T06:00:00Z', period: '2024-11', currency: 'EUR', difference: 110000 }])
 * // [{ type: 'line', currency: 'EUR', unit: 'EUR', labels: ['Dec 3, 2024, 7:00 AM'], datasets: [{ label: 'EUR', data: [110000] }], … }]
 */
export function trendCharts(trend, options = {}) {
  const byCurrency = new Map();
  for (const point of trend) {
    const currency = point.currency ?? '';
    if (!byCurrency.has(currency)) byCurrency.set(currency, []);
    byCurrency.get(currency).push(point);
  }
  return [...byCurrency].map(([currency, points]) => {
    const runs = [...new Set(points.map((point) => point.at))];
    const periods = [...new Set(points.map((point) => point.period))];
    const onePeriodPerRun = runs.every((at) => points.filter((point) => point.at === at).length === 1);
    const pointOf = (at, period) => points.find((point) => point.at === at && (period === undefined || point.period === period));
    const datasets = onePeriodPerRun
      ? [{ label: currency || 'Difference', data: runs.map((at) => pointOf(at).difference) }]
      : periods.map((period) => ({ label: period, data: runs.map((at) => pointOf(at, period)?.difference ?? null) }));
    let labels = runLabels(runs, options);
    // One line through runs of different months: each run's month goes with its date.
    if (onePeriodPerRun && periods.length > 1) labels = labels.map((label, index) => `${pointOf(runs[index]).period} · ${label}`);
    return {
      type: 'line',
      currency,
      ...(currency ? { unit: currency } : {}),
      label: `Difference${currency ? ` in ${currency}` : ''} over the last ${runs.length} ${runs.length === 1 ? 'run' : 'runs'}`,
      labels,
      datasets,
    };
  });
}

/**
 * The counts of list_checks as a summary line, breaks first.
 * @param {Record<string, number>} counts
 * @param {number} total
 * @returns {string}
 * @example
 * countsText({ break: 1, tie: 1 }, 2) // '2 checks: 1 break, 1 tie'
 */
export function countsText(counts, total) {
  const order = ['break', 'error', 'within_tolerance', 'tie', 'never_run'];
  const parts = Object.entries(counts)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99))
    .map(([status, count]) => `${count} ${statusLabel(status).words.toLowerCase()}`);
  return `${total} ${total === 1 ? 'check' : 'checks'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
