/**
 * Filter values as words in the chat's locale (`October 2024`, `1000, 2000, 3000 +2`), for the
 * receipts' Filters line. The names of a comparison's sides are not made here: the server
 * computes them once (the presentation's `labels`, src/skills/presentation.ts) and results.js
 * fills them in.
 */
import { formatPeriodRange, formatDimensionValue, isPeriodName } from './periods.js';

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** At most this many values of a value list in a label; the rest are counted. */
const MAX_LIST_VALUES = 3;

/**
 * A filter value as words: `ACTUAL`, `October 2024` (a period dimension), `1000, 2000, 3000 +2`
 * (a list), `October – December 2024` (a range), `(blank)` (null).
 * @param {string} dimension the filtered dimension's name
 * @param {unknown} value as filters are returned (`filters_a`): a value, null, a list or `{from, to}`
 * @param {{locale?: string, fiscalYearStart?: number}} [options] fiscalYearStart: the catalog's (periods.js)
 * @returns {string}
 */
export function filterValueText(dimension, value, { locale = 'en-US', fiscalYearStart = 1 } = {}) {
  const options = { locale, fiscalYearStart };
  if (value === null || value === undefined) return '(blank)';
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_LIST_VALUES).map((item) => filterValueText(dimension, item, options));
    return value.length > MAX_LIST_VALUES ? `${shown.join(', ')} +${value.length - MAX_LIST_VALUES}` : shown.join(', ');
  }
  if (isRecord(value) && ('from' in value || 'to' in value)) {
    if (isPeriodName(dimension)) return formatPeriodRange(value.from, value.to, options);
    const from = value.from === undefined ? undefined : formatDimensionValue(dimension, value.from, options);
    const to = value.to === undefined ? undefined : formatDimensionValue(dimension, value.to, options);
    return from === undefined ? `to ${to}` : to === undefined ? `from ${from}` : `${from}–${to}`;
  }
  return formatDimensionValue(dimension, value, options);
}
