/**
 * Turns tool results into views: tables (columns + rows), an optional chart, notes. Pure data,
 * no DOM: views.js draws them. It knows no tool: each call carries the `presentation` its tool
 * declared (src/skills/presentation.ts), and this module reads it generically; a result without
 * one still becomes a table when it holds a list of records. Sides of a comparison (`{a}`, `{b}`
 * in a spec's texts) are named by labels.js, periods read as periods.js writes them (columns of
 * kind `period`), in the chat's locale and the catalog's fiscal year (the presentation's
 * `fiscal_year_start`).
 */
import { formatNumber, formatPercent, humanize } from './format.js';
import { sideLabels } from './labels.js';
import { fiscalYearStartOf, formatDimensionValue, isPeriodName } from './periods.js';

/** At most this many categories in a chart; the table always has every row. */
export const MAX_CHART_LABELS = 30;
const MAX_CHART_SERIES = 6;

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const unique = (values) => [...new Set(values)];
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A spec's text with its placeholders filled in: `{a}` and `{b}` (the sides' names),
 * `{number:1234}` and `{percent:59.6}` (formatted in the locale).
 * @param {unknown} text
 * @param {{sides: {a: string, b: string}, locale: string}} context
 * @returns {string}
 * @example
 * fillText('{a} vs {b}: {number:1200} rows', { sides: { a: 'FI', b: 'BPC' }, locale: 'en-US' }) // 'FI vs BPC: 1,200 rows'
 */
export function fillText(text, { sides, locale }) {
  if (typeof text !== 'string') return '';
  return text.replace(/\{(a|b|number|percent)(?::(-?[\d.eE+-]+))?\}/g, (whole, kind, value) => {
    if (kind === 'a' || kind === 'b') return value === undefined ? sides[kind] : whole;
    if (value === undefined) return whole;
    return kind === 'number' ? formatNumber(Number(value), { locale }) : formatPercent(Number(value), { locale });
  });
}

/**
 * The comparison whose sides a call's spec names: its own sides when they name both sources with
 * their filters; else those of another call of the answer with the same `comparison_id`; else
 * what it has.
 */
function sidesOf(call, calls) {
  const own = isRecord(call.presentation?.sides) ? call.presentation.sides : undefined;
  if (!own) return {};
  const complete = (sides) => isRecord(sides) && 'source_a' in sides && 'source_b' in sides;
  if (complete(own) && ('filters_a' in own || 'filters_b' in own)) return own;
  const id = own.comparison_id;
  const other = id ? calls.find((candidate) => candidate !== call && candidate?.presentation?.sides?.comparison_id === id && complete(candidate.presentation.sides)) : undefined;
  return other ? other.presentation.sides : own;
}

/**
 * A one-line description of a call for its summary row, from its presentation's caption:
 * `fi_reporting vs bpc_reporting`, `consolidation_mart ACTUAL vs consolidation_mart BUDGET · amount`.
 * @param {{name?: string, args?: unknown, presentation?: {caption?: string, sides?: object}}} call
 * @param {{locale?: string, calls?: Array<object>}} [options] calls: the answer's calls, for sides named by id
 * @returns {string}
 */
export function describeCall(call, { locale = 'en-US' } = {}) {
  const caption = call?.presentation?.caption;
  if (typeof caption !== 'string' || !caption) return '';
  const fiscalYearStart = fiscalYearStartOf(call.presentation.fiscal_year_start);
  return fillText(caption, { locale, sides: sideLabels(sidesOf(call, []), { locale, fiscalYearStart }) });
}

/** The value at `path` (field names and indexes) of `value`. */
function at(value, path) {
  return (Array.isArray(path) ? path : []).reduce((current, step) => (current !== null && typeof current === 'object' ? current[step] : undefined), value);
}

/** A spec's column as views.js and columns.js read it: `{key, label, kind, signedBy?}`. */
function toColumn(spec, rows, context) {
  const label = spec.label === undefined ? humanize(spec.key) : fillText(spec.label, context);
  switch (spec.role) {
    case 'measure':
    case 'difference':
      return { key: spec.key, label, kind: 'number' };
    case 'percent':
      return { key: spec.key, label, kind: 'percent', ...(spec.signedBy ? { signedBy: spec.signedBy } : {}) };
    case 'status':
      return { key: spec.key, label, kind: 'status' };
    default: {
      // A period dimension reads as months; a column of several dimensions' values only when all are periods.
      const period = spec.dimensionField ? rows.length > 0 && rows.every((row) => isPeriodName(row[spec.dimensionField])) : isPeriodName(spec.dimension ?? spec.key);
      if (!period) return { key: spec.key, label, kind: 'text' };
      return { key: spec.key, label, kind: 'period', ...(context.fiscalYearStart !== 1 ? { fiscalYearStart: context.fiscalYearStart } : {}) };
    }
  }
}

/** A chart as charts.js draws it (`{type, labels, datasets, label, horizontal?}`), or undefined with nothing to draw. */
function toChart(spec, rows, columns, context, notes) {
  const { locale, fiscalYearStart } = context;
  const categories = Array.isArray(spec.categories) ? spec.categories : [];
  const dimensionOf = (key) => columns.find((column) => column.key === key)?.dimension ?? key;
  const blank = typeof spec.blank === 'string' ? spec.blank : '(blank)';
  const labelOf = (row) => {
    const parts = categories.map((key) => formatDimensionValue(dimensionOf(key), row[key], { locale, fiscalYearStart }));
    return parts.length && parts.some(Boolean) ? parts.map((part) => part || '(blank)').join(' · ') : blank;
  };
  const series = Array.isArray(spec.series) ? spec.series : [];
  const split = series.some((one) => one.splitBy);
  const value = (row, key) => (row && typeof row[key] === 'number' ? row[key] : null);
  let labels;
  const datasets = [];
  if (!split) {
    // One bar per row, in the rows' order.
    const shown = rows.slice(0, MAX_CHART_LABELS);
    labels = shown.map(labelOf);
    for (const one of series.slice(0, MAX_CHART_SERIES)) datasets.push({ label: fillText(one.label, context), data: shown.map((row) => value(row, one.key)) });
  } else {
    // Rows of several groups (e.g. currencies) per category: one series per group.
    // Each row's label once, and the first row per label and group (as a search would find it).
    const labelled = rows.map((row) => [labelOf(row), row]);
    const all = unique(labelled.map(([label]) => label));
    labels = all.slice(0, MAX_CHART_LABELS);
    for (const one of series) {
      const groups = one.splitBy ? unique(rows.map((row) => row[one.splitBy] ?? null)) : [undefined];
      const firstRow = new Map();
      for (const [label, row] of labelled) {
        const key = `${label}\u0000${one.splitBy ? String(row[one.splitBy] ?? null) : ''}`;
        if (!firstRow.has(key)) firstRow.set(key, row);
      }
      for (const group of groups) {
        if (datasets.length >= MAX_CHART_SERIES) break;
        const data = labels.map((label) => value(firstRow.get(`${label}\u0000${group === undefined ? '' : String(group)}`), one.key));
        if (data.every((item) => item === null)) continue;
        const suffix = group === undefined ? '' : ` (${group ?? one.splitBlank ?? '(blank)'})`;
        datasets.push({ label: `${fillText(one.label, context)}${suffix}`, data });
      }
    }
    if (all.length > labels.length && datasets.length) notes.push(`The chart shows the first ${labels.length} groups; the table has them all.`);
  }
  if (!datasets.length || !labels.length) return undefined;
  return { type: spec.kind === 'line' ? 'line' : 'bar', labels, datasets, label: fillText(spec.label, context), ...(spec.horizontal ? { horizontal: true } : {}) };
}

/** The views of a call with a presentation spec. */
function specViews(call, calls, locale) {
  const fiscalYearStart = fiscalYearStartOf(call.presentation.fiscal_year_start);
  const context = { locale, fiscalYearStart, sides: sideLabels(sidesOf(call, calls), { locale, fiscalYearStart }) };
  const specs = Array.isArray(call.presentation.views) ? call.presentation.views.filter(isRecord) : [];
  return specs.flatMap((spec) => {
    const listed = Array.isArray(spec.rows) ? spec.rows : at(call.result, spec.rowsAt);
    const rows = Array.isArray(listed) ? listed.filter(isRecord) : [];
    if (!rows.length) return [];
    const specColumns = Array.isArray(spec.columns) ? spec.columns.filter(isRecord) : [];
    const notes = (Array.isArray(spec.notes) ? spec.notes : []).map((note) => fillText(note, context));
    const view = {
      title: fillText(spec.title, context),
      subtitle: fillText(spec.subtitle ?? '', context),
      columns: specColumns.map((column) => toColumn(column, rows, context)),
      rows,
      notes,
      csvName: (Array.isArray(spec.csvName) ? spec.csvName : []).map((part) => fillText(String(part), context)),
    };
    const chart = isRecord(spec.chart) ? toChart(spec.chart, rows, specColumns, context, notes) : undefined;
    return [chart ? { ...view, chart } : view];
  });
}

/**
 * The views of one tool call (empty for failures and results with nothing tabular). `calls` are
 * the other calls of the answer: a result that refers to a comparison by its id takes the names
 * of the sides from that comparison.
 * @param {{id?: string, name?: string, ok?: boolean, args?: unknown, result?: unknown, presentation?: object}} call
 * @param {Array<object>} [calls]
 * @param {{locale?: string}} [options] the locale of period names in labels and chart axes
 */
export function viewsFor(call, calls = [], { locale = 'en-US' } = {}) {
  if (!call || call.ok === false || !isRecord(call.result)) return [];
  const result = call.result;
  const views = isRecord(call.presentation) ? specViews(call, calls, locale) : genericViews(result, call.name);
  if (result.compacted) for (const view of views) view.notes.unshift('Preview: the complete result arrives with the answer.');
  return views.map((view, index) => ({ ...view, id: `${call.id ?? call.name}-${index}`, tool: call.name }));
}

/** A result without a presentation: its first list of records becomes a table. */
function genericViews(result, name) {
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value) || !value.length || !value.every(isRecord)) continue;
    const keys = unique(value.flatMap((row) => Object.keys(row))).slice(0, 20);
    const numeric = (k) => value.every((row) => row[k] === null || row[k] === undefined || typeof row[k] === 'number');
    const columns = keys.map((k) => ({ key: k, label: humanize(k), kind: numeric(k) ? 'number' : isPeriodName(k) ? 'period' : 'text' }));
    return [{ title: `${name}: ${humanize(key).toLowerCase()}`, subtitle: plural(value.length, 'row'), columns, rows: value, notes: [], csvName: [name, key] }];
  }
  return [];
}
