/**
 * What the two sides of a comparison are called: one function for table headers, chart legends,
 * view titles, CSV headers and file names, so a reader sees the same name everywhere.
 *
 * Two different sources keep their names (`fi_reporting` / `bpc_reporting`). One source compared
 * with itself is named by what tells the sides apart: the filter values that differ between
 * `filters_a` and `filters_b` (`consolidation_mart ACTUAL` / `consolidation_mart BUDGET`,
 * `fi_reporting November 2024` / `fi_reporting December 2024`), and the measure when the sides
 * measure different things. Only the record's fields are read, never a tool's name.
 */
import { formatPeriodRange, formatDimensionValue, isPeriodName } from './periods.js';

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** At most this many values of a value list in a label; the rest are counted. */
const MAX_LIST_VALUES = 3;

/** JSON with sorted keys, so `{from, to}` and `{to, from}` compare equal. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  return JSON.stringify(value ?? null);
}

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

/** A side's measure name: `measure_a` (a name or `{name}`), or `measure: {a, b}` of arguments. */
function measureOf(comparison, side) {
  const own = comparison[`measure_${side}`];
  if (typeof own === 'string') return own;
  if (isRecord(own) && typeof own.name === 'string') return own.name;
  if (isRecord(comparison.measure) && typeof comparison.measure[side] === 'string') return comparison.measure[side];
  return undefined;
}

/**
 * The names of the two sides of a comparison (a result, or the arguments that asked for one).
 * @param {{source_a?: unknown, source_b?: unknown, filters_a?: unknown, filters_b?: unknown,
 *   measure_a?: unknown, measure_b?: unknown, measure?: unknown}} comparison
 * @param {{locale?: string, fiscalYearStart?: number}} [options] fiscalYearStart: the catalog's, for period filters
 * @returns {{a: string, b: string}}
 * @example
 * sideLabels({source_a: 'consolidation_mart', source_b: 'consolidation_mart',
 *   filters_a: {company: '1000', version: 'ACTUAL'}, filters_b: {company: '1000', version: 'BUDGET'}})
 * // {a: 'consolidation_mart ACTUAL', b: 'consolidation_mart BUDGET'}
 */
export function sideLabels(comparison, { locale = 'en-US', fiscalYearStart = 1 } = {}) {
  const record = isRecord(comparison) ? comparison : {};
  const a = record.source_a === undefined || record.source_a === null ? 'A' : String(record.source_a);
  const b = record.source_b === undefined || record.source_b === null ? 'B' : String(record.source_b);
  if (a !== b) return { a, b };
  const filtersA = isRecord(record.filters_a) ? record.filters_a : {};
  const filtersB = isRecord(record.filters_b) ? record.filters_b : {};
  const differing = [...new Set([...Object.keys(filtersA), ...Object.keys(filtersB)])].filter((key) => canonical(filtersA[key]) !== canonical(filtersB[key]));
  const partsOf = (filters, side) => {
    const parts = differing.filter((key) => key in filters).map((key) => filterValueText(key, filters[key], { locale, fiscalYearStart }));
    const measureA = measureOf(record, 'a');
    const measureB = measureOf(record, 'b');
    if (measureA && measureB && measureA !== measureB) parts.push(side === 'a' ? measureA : measureB);
    return parts;
  };
  const labelA = [a, ...partsOf(filtersA, 'a')].join(' ');
  const labelB = [b, ...partsOf(filtersB, 'b')].join(' ');
  // Nothing tells them apart in the record: at least say which side is which.
  return labelA === labelB ? { a: `${labelA} (side A)`, b: `${labelB} (side B)` } : { a: labelA, b: labelB };
}
