/**
 * Turns tool results into views: tables (columns + rows), charts (one per unit), notes. Pure
 * data, no DOM: views.js draws them. It knows no tool: each call carries the `presentation` its
 * tool declared (src/skills/presentation.ts), and this module reads it generically; a result
 * without one still becomes a table when it holds a list of records. Every label comes from the
 * server: the sides of a comparison (`{a}`, `{b}` in a spec's texts) are the presentation's
 * `labels`, headers and status words its columns'; this module only fills in placeholders, in
 * the chat's locale and the catalog's fiscal year (the presentation's `fiscal_year_start`).
 */
import { formatNumber, formatPercent } from './format.js';
import { fiscalYearStartOf, formatDimensionValue, formatPeriod, formatPeriodRange, isPeriodName } from './periods.js';

/** At most this many categories in a chart; the table always has every row. */
export const MAX_CHART_LABELS = 30;
const MAX_CHART_SERIES = 6;

const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const unique = (values) => [...new Set(values)];
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The sides' names when the server named none (a call about a comparison the chat does not have). */
const UNNAMED_SIDES = { a: 'side A', b: 'side B' };

/**
 * A spec's text with its placeholders filled in: `{a}` and `{b}` (the sides' names, as the
 * server wrote them), `{number:1234}`, `{percent:59.6}` and `{period:2024012}` or
 * `{period:2024010/2024012}` (formatted in the locale and fiscal year).
 * @param {unknown} text
 * @param {{sides: {a: string, b: string}, locale: string, fiscalYearStart?: number}} context
 * @returns {string}
 * @example
 * fillText('{a} vs {b}: {number:1200} rows', { sides: { a: 'FI', b: 'BPC' }, locale: 'en-US' }) // 'FI vs BPC: 1,200 rows'
 * fillText('for {period:2024012}', { sides, locale: 'de-DE' }) // 'for Dezember 2024'
 */
export function fillText(text, { sides = UNNAMED_SIDES, locale = 'en-US', fiscalYearStart = 1 }) {
  if (typeof text !== 'string') return '';
  const filled = text.replace(/\{(a|b)\}/g, (whole, side) => fillPeriods(sides[side] ?? UNNAMED_SIDES[side], { locale, fiscalYearStart }));
  return fillPeriods(filled, { locale, fiscalYearStart }).replace(/\{(number|percent):(-?[\d.eE+-]+)\}/g, (whole, kind, value) =>
    kind === 'number' ? formatNumber(Number(value), { locale }) : formatPercent(Number(value), { locale }),
  );
}

/** `{period:2024012}` → `December 2024`, `{period:2024010/2024012}` → `October – December 2024`. */
function fillPeriods(text, options) {
  return String(text).replace(/\{period:(\d{7})(?:\/(\d{7}))?\}/g, (whole, from, to) => (to ? formatPeriodRange(from, to, options) : formatPeriod(from, options)));
}

/**
 * The names of the sides a call's texts mean by `{a}` and `{b}`, as the server computed them
 * (`presentation.labels`), with their periods named in the locale. A call about a comparison by
 * its id takes those of the call of the conversation with the same `comparison_id`.
 * @param {{presentation?: {labels?: {a: string, b: string}, sides?: {comparison_id?: string}, fiscal_year_start?: number}}} call
 * @param {Array<object>} [calls] the conversation's calls (this answer's first)
 * @param {{locale?: string}} [options]
 * @returns {{a: string, b: string}}
 * @example
 * sideNames(explainCall, [compareCall, explainCall]) // { a: 'fi_reporting', b: 'bpc_reporting' }
 */
export function sideNames(call, calls = [], { locale = 'en-US' } = {}) {
  const named = (candidate) => isRecord(candidate?.presentation?.labels) ? candidate : undefined;
  const id = call?.presentation?.sides?.comparison_id;
  const source = named(call) ?? (id ? calls.find((candidate) => candidate !== call && candidate?.presentation?.sides?.comparison_id === id && named(candidate)) : undefined);
  if (!source) {
    // A turn stored before the server named the sides: its sources, as they are.
    const sides = call?.presentation?.sides;
    return typeof sides?.source_a === 'string' && typeof sides?.source_b === 'string' ? { a: sides.source_a, b: sides.source_b } : UNNAMED_SIDES;
  }
  const options = { locale, fiscalYearStart: fiscalYearStartOf(source.presentation.fiscal_year_start) };
  const { a, b } = source.presentation.labels;
  return { a: fillPeriods(a ?? UNNAMED_SIDES.a, options), b: fillPeriods(b ?? UNNAMED_SIDES.b, options) };
}

/**
 * A one-line description of a call for its summary row, its presentation's caption in words:
 * `Compared fi_reporting with bpc_reporting for company 1000, December 2024 · amount`.
 * @param {{name?: string, args?: unknown, presentation?: {caption?: string, labels?: object}}} call
 * @param {{locale?: string, calls?: Array<object>}} [options] calls: the conversation's calls, for sides named by id
 * @returns {string}
 */
export function describeCall(call, { locale = 'en-US', calls = [] } = {}) {
  const caption = call?.presentation?.caption;
  if (typeof caption !== 'string' || !caption) return '';
  const fiscalYearStart = fiscalYearStartOf(call.presentation.fiscal_year_start);
  return fillText(caption, { locale, fiscalYearStart, sides: sideNames(call, calls, { locale }) });
}

/** The value at `path` (field names and indexes) of `value`. */
function at(value, path) {
  return (Array.isArray(path) ? path : []).reduce((current, step) => (current !== null && typeof current === 'object' ? current[step] : undefined), value);
}

/** A spec's column as views.js and columns.js read it: `{key, label, kind, signedBy?}`. */
function toColumn(spec, rows, context) {
  const label = spec.label === undefined ? spec.key : fillText(spec.label, context);
  switch (spec.role) {
    case 'measure':
      return { key: spec.key, label, kind: 'number' };
    case 'difference':
      return { key: spec.key, label, kind: 'number', difference: true };
    case 'percent':
      return { key: spec.key, label, kind: 'percent', ...(spec.signedBy ? { signedBy: spec.signedBy } : {}) };
    case 'status': {
      const words = isRecord(spec.valueLabels) ? Object.fromEntries(Object.entries(spec.valueLabels).map(([value, text]) => [value, fillText(text, context)])) : {};
      return { key: spec.key, label, kind: 'status', valueLabels: words };
    }
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

/**
 * The charts of a view: one, or one per unit when the spec names the rows' unit (`unitField`,
 * e.g. currency) and they hold several, so EUR and USD never share an axis. A chart of one unit
 * says it (`unit`: its value axis's title).
 */
function toCharts(spec, rows, columns, context, notes) {
  const field = typeof spec.unitField === 'string' ? spec.unitField : undefined;
  const units = field ? unique(rows.map((row) => row[field] ?? null)) : [undefined];
  return units.slice(0, MAX_CHART_SERIES).flatMap((unit) => {
    const chart = toChart(spec, unit === undefined ? rows : rows.filter((row) => (row[field] ?? null) === unit), columns, context, notes);
    if (!chart) return [];
    if (unit === undefined) return [chart];
    const name = unit === null ? '(no currency)' : String(unit);
    return [{ ...chart, unit: name, ...(units.length > 1 ? { label: `${chart.label} (${name})` } : {}) }];
  });
}

/** The views of a call with a presentation spec. */
function specViews(call, calls, locale) {
  const fiscalYearStart = fiscalYearStartOf(call.presentation.fiscal_year_start);
  const context = { locale, fiscalYearStart, sides: sideNames(call, calls, { locale }) };
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
    const charts = isRecord(spec.chart) ? toCharts(spec.chart, rows, specColumns, context, notes) : [];
    return [{ ...view, charts, notes: unique(notes) }];
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

/**
 * The views of an answer's calls, each table once: a view with the same columns and rows as one
 * before it (the same query asked twice, a page repeating the comparison's rows) is left out.
 * @param {Array<object>} calls the answer's calls
 * @param {{locale?: string, earlierCalls?: Array<object>}} [options] earlierCalls: the conversation's
 *   calls before this answer, naming the sides of a comparison referred to by id
 * @returns {Array<object>} views as viewsFor makes them
 * @example
 * answerViews([query, query]).length // 1
 */
export function answerViews(calls, { locale = 'en-US', earlierCalls = [] } = {}) {
  const seen = new Set();
  return calls.flatMap((call) =>
    viewsFor(call, [...calls, ...earlierCalls], { locale }).filter((view) => {
      const signature = JSON.stringify([view.columns.map((column) => [column.key, column.label]), view.rows]);
      return !seen.has(signature) && Boolean(seen.add(signature));
    }),
  );
}

/** A result without a presentation: its first list of records becomes a table. */
function genericViews(result, name) {
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value) || !value.length || !value.every(isRecord)) continue;
    const keys = unique(value.flatMap((row) => Object.keys(row))).slice(0, 20);
    const numeric = (k) => value.every((row) => row[k] === null || row[k] === undefined || typeof row[k] === 'number');
    const columns = keys.map((k) => ({ key: k, label: k, kind: numeric(k) ? 'number' : isPeriodName(k) ? 'period' : 'text' }));
    return [{ title: `${name}: ${key}`, subtitle: plural(value.length, 'row'), columns, rows: value, notes: [], charts: [], csvName: [name, key] }];
  }
  return [];
}
