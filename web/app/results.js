/**
 * Turns tool results into views: tables (columns + rows), an optional chart, notes. Pure data,
 * no DOM: views.js draws them. Knows the data_analyst tools; any other result that holds a list
 * of records still becomes a table. Sides of a comparison are named by labels.js, periods read
 * as periods.js writes them (columns of kind `period`), in the chat's locale.
 */
import { formatNumber, formatPercent, humanize } from './format.js';
import { sideLabels } from './labels.js';
import { formatDimensionValue, isPeriodName } from './periods.js';

/** At most this many categories in a chart; the table always has every row. */
export const MAX_CHART_LABELS = 30;
const MAX_CHART_SERIES = 6;

const num = (key, label, kind = 'number') => ({ key, label, kind });
/** A dimension's column: `period` when its name says it holds periods. */
const text = (key, label = humanize(key), dimension = key) => ({ key, label, kind: isPeriodName(dimension) ? 'period' : 'text' });
/** Difference % signed like the difference: tools return its size relative to side A. */
const differencePercent = (key = 'difference_percent') => ({ key, label: 'Difference %', kind: 'percent', signedBy: 'difference' });
const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const unique = (values) => [...new Set(values)];
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A one-line description of a call for its summary row: `fi_reporting vs bpc_reporting`,
 * `consolidation_mart ACTUAL vs consolidation_mart BUDGET · amount`.
 * @param {{name?: string, args?: unknown}} call
 * @param {{locale?: string}} [options]
 * @returns {string}
 */
export function describeCall(call, { locale = 'en-US' } = {}) {
  const args = isRecord(call.args) ? call.args : {};
  switch (call.name) {
    case 'query_source': {
      const measures = Array.isArray(args.measures) ? args.measures.join(', ') : '';
      const dims = Array.isArray(args.dimensions) && args.dimensions.length ? ` by ${args.dimensions.join(', ')}` : '';
      return [args.source, measures].filter(Boolean).join(' · ') + dims;
    }
    case 'compare_sources': {
      const measure = typeof args.measure === 'string' ? ` · ${args.measure}` : '';
      const sides = sideLabels({ source_a: args.source_a ?? '?', source_b: args.source_b ?? '?', filters_a: args.filters_a, filters_b: args.filters_b, measure: args.measure }, { locale });
      return `${sides.a} vs ${sides.b}${measure}`;
    }
    case 'explain_difference':
    case 'list_differences': {
      if (args.comparison_id) return String(args.comparison_id);
      if (!isRecord(args.comparison)) return '';
      const sides = sideLabels(args.comparison, { locale });
      return `${sides.a} vs ${sides.b}`;
    }
    default:
      return '';
  }
}

/**
 * The views of one tool call (empty for failures and results with nothing tabular). `calls` are
 * the other calls of the answer: a result that refers to a comparison by its id takes the names
 * of the sides from that comparison.
 * @param {{id?: string, name?: string, ok?: boolean, args?: unknown, result?: unknown}} call
 * @param {Array<object>} [calls]
 * @param {{locale?: string}} [options] the locale of period names in labels and chart axes
 */
export function viewsFor(call, calls = [], { locale = 'en-US' } = {}) {
  if (!call || call.ok === false || !isRecord(call.result)) return [];
  const result = call.result;
  const context = { locale, sides: sideLabels(comparisonOf(call, calls), { locale }) };
  const views = (() => {
    switch (call.name) {
      case 'query_source':
        return queryViews(result, context);
      case 'compare_sources':
        return compareViews(result, context);
      case 'explain_difference':
        return explainViews(result, context);
      case 'list_differences':
        return differencesViews(result.rows, context, `${context.sides.a} vs ${context.sides.b}: differences`, result.note ? [result.note] : []);
      case 'list_sources':
        return sourcesViews(result);
      default:
        return genericViews(result, call.name);
    }
  })();
  if (result.compacted) for (const view of views) view.notes.unshift('Preview: the complete result arrives with the answer.');
  return views.map((view, index) => ({ ...view, id: `${call.id ?? call.name}-${index}`, tool: call.name }));
}

function queryViews(result, { locale }) {
  const rows = Array.isArray(result.rows) ? result.rows.filter(isRecord) : [];
  const measureNames = Array.isArray(result.measures) ? result.measures.map((m) => (isRecord(m) ? m.name : m)).filter(Boolean) : [];
  const dims = Array.isArray(result.dimensions) ? result.dimensions : Object.keys(rows[0] ?? {}).filter((k) => !measureNames.includes(k));
  const columns = [...dims.map((d) => text(d)), ...measureNames.map((m) => num(m, humanize(m)))];
  const shown = rows.length;
  const total = typeof result.total_rows === 'number' ? result.total_rows : shown;
  const subtitle = `${plural(shown, 'row')}${total > shown ? ` of ${formatNumber(total, { locale })}` : ''}`;
  const notes = Array.isArray(result.notes) ? result.notes.map(String) : [];
  if (result.truncated) notes.push(`Only the first ${shown} of ${total} rows are shown.`);
  const labelDims = dims.filter((d) => d !== 'currency');
  let chart;
  if (labelDims.length > 0 && rows.length >= 2 && measureNames.length > 0) {
    const labelOf = (row) => labelDims.map((d) => formatDimensionValue(d, row[d], { locale }) || '(blank)').join(' · ');
    const labels = unique(rows.map(labelOf)).slice(0, MAX_CHART_LABELS);
    const currencies = dims.includes('currency') ? unique(rows.map((row) => row.currency ?? null)) : [undefined];
    const datasets = [];
    for (const measure of measureNames) {
      for (const currency of currencies) {
        if (datasets.length >= MAX_CHART_SERIES) break;
        const data = labels.map((label) => {
          const row = rows.find((r) => labelOf(r) === label && (currency === undefined || (r.currency ?? null) === currency));
          return row && typeof row[measure] === 'number' ? row[measure] : null;
        });
        if (data.every((value) => value === null)) continue;
        const suffix = currency === undefined ? '' : ` (${currency ?? 'no currency'})`;
        datasets.push({ label: `${humanize(measure)}${suffix}`, data });
      }
    }
    if (datasets.length) {
      chart = { type: 'bar', labels, datasets, label: `${humanize(measureNames[0])} by ${labelDims.join(', ')}` };
      if (unique(rows.map(labelOf)).length > labels.length) notes.push(`The chart shows the first ${labels.length} groups; the table has them all.`);
    }
  }
  const title = `${result.source ?? 'Query'}${labelDims.length ? ` by ${labelDims.map(humanize).join(', ').toLowerCase()}` : ''}`;
  return [{ title, subtitle, columns, rows, chart, notes, csvName: ['query', result.source, ...labelDims] }];
}

function summaryLine(summary) {
  if (!isRecord(summary)) return '';
  const parts = [
    ['match', 'match'],
    ['minor_diff', 'minor'],
    ['major_diff', 'major'],
    ['only_in_a', 'only in A'],
    ['only_in_b', 'only in B'],
  ]
    .filter(([key]) => typeof summary[key] === 'number' && summary[key] > 0)
    .map(([key, word]) => `${summary[key]} ${word}`);
  const aligned = typeof summary.aligned_rows === 'number' ? plural(summary.aligned_rows, 'aligned row') : '';
  return [aligned, parts.join(', ')].filter(Boolean).join(': ');
}

const keyColumnsOf = (rows, alignOn) =>
  Array.isArray(alignOn) && alignOn.length
    ? alignOn.filter((k) => rows.some((row) => k in row))
    : unique(rows.flatMap((row) => Object.keys(row))).filter((k) => !['a', 'b', 'difference', 'difference_percent', 'status'].includes(k));

function differencesViews(list, { locale, sides }, title, notes = [], alignOn = undefined) {
  const rows = Array.isArray(list) ? list.filter(isRecord) : [];
  if (!rows.length) return [];
  const { a, b } = sides;
  const keys = keyColumnsOf(rows, alignOn);
  const columns = [
    ...keys.map((k) => text(k)),
    num('a', a),
    num('b', b),
    num('difference', 'Difference'),
    differencePercent(),
    { key: 'status', label: 'Status', kind: 'status' },
  ];
  // Currency in the label only when the rows are in more than one; a key that is the same in
  // every row (company 1000 of a one-company comparison) neither, when another key varies.
  const varies = (k) => unique(rows.map((row) => JSON.stringify(row[k] ?? null))).length > 1;
  const withoutCurrency = keys.filter((k) => k !== 'currency' || varies(k));
  const labelKeys = withoutCurrency.some(varies) ? withoutCurrency.filter(varies) : withoutCurrency;
  const chartRows = rows.slice(0, MAX_CHART_LABELS);
  const labelOf = (row) => (labelKeys.length ? labelKeys.map((k) => formatDimensionValue(k, row[k], { locale }) || '(blank)').join(' · ') : 'Total');
  const chart = {
    type: 'bar',
    labels: chartRows.map(labelOf),
    datasets: [
      { label: a, data: chartRows.map((row) => (typeof row.a === 'number' ? row.a : null)) },
      { label: b, data: chartRows.map((row) => (typeof row.b === 'number' ? row.b : null)) },
    ],
    label: `${a} vs ${b}${labelKeys.length ? ` by ${labelKeys.join(', ')}` : ''}`,
  };
  return [{ title, subtitle: plural(rows.length, 'row'), columns, rows, chart, notes, csvName: ['differences', a, b] }];
}

function compareViews(result, context) {
  const { a, b } = context.sides;
  const views = [];
  const totals = isRecord(result.summary) && Array.isArray(result.summary.totals) ? result.summary.totals.filter(isRecord) : [];
  const interpretation = typeof result.interpretation === 'string' ? [result.interpretation] : [];
  if (totals.length) {
    views.push({
      title: `${a} vs ${b}: totals`,
      subtitle: summaryLine(result.summary),
      columns: [text('currency'), num('total_a', a), num('total_b', b), num('difference', 'Difference'), differencePercent()],
      rows: totals,
      notes: interpretation,
      csvName: ['totals', a, b],
    });
  }
  const differences = differencesViews(result.top_differences, context, `${a} vs ${b}: largest differences`, Array.isArray(result.notes) ? result.notes.map(String) : [], result.align_on);
  if (differences.length) views.push(...differences);
  else if (totals.length) {
    views[0].chart = {
      type: 'bar',
      labels: totals.map((row) => formatDimensionValue('currency', row.currency) || 'Total'),
      datasets: [
        { label: a, data: totals.map((row) => row.total_a ?? null) },
        { label: b, data: totals.map((row) => row.total_b ?? null) },
      ],
      label: `${a} vs ${b} by currency`,
    };
  }
  return views;
}

/**
 * The comparison a call's result is about, read from fields only: the result itself when it
 * names both sources with their filters; else the comparison in its arguments; else the result
 * of another call of the answer with the same `comparison_id`; else what the result has.
 */
function comparisonOf(call, calls) {
  const result = call.result;
  const args = isRecord(call.args) ? call.args : {};
  const complete = (record) => isRecord(record) && 'source_a' in record && 'source_b' in record;
  if (complete(result) && ('filters_a' in result || 'filters_b' in result)) return result;
  if (complete(args.comparison)) return args.comparison;
  const id = result.comparison_id ?? args.comparison_id;
  const earlier = id ? calls.find((other) => other !== call && isRecord(other?.result) && other.result.comparison_id === id && complete(other.result)) : undefined;
  return earlier ? earlier.result : result;
}

function explainViews(result, { locale, sides }) {
  const views = [];
  const explanation = typeof result.explanation === 'string' ? [result.explanation] : [];
  const dims = Array.isArray(result.by_dimension) ? result.by_dimension.filter((d) => isRecord(d) && Array.isArray(d.values) && d.values.length) : [];
  dims.forEach((dimension, index) => {
    const rows = dimension.values.filter(isRecord);
    const view = {
      title: `Gap by ${humanize(dimension.dimension).toLowerCase()}`,
      subtitle: typeof dimension.explains_percent === 'number' ? `these values explain ${formatPercent(dimension.explains_percent, { locale })} of the gap` : '',
      columns: [text('value', humanize(dimension.dimension), dimension.dimension), num('a', sides.a), num('b', sides.b), num('difference', 'Difference'), num('share_percent', 'Share of gap', 'percent')],
      rows,
      notes: index === 0 ? explanation : [],
      csvName: ['gap-by', dimension.dimension],
    };
    if (index === 0) {
      view.chart = {
        type: 'bar',
        horizontal: true,
        labels: rows.slice(0, MAX_CHART_LABELS).map((row) => formatDimensionValue(dimension.dimension, row.value, { locale }) || '(blank)'),
        datasets: [{ label: 'Difference', data: rows.slice(0, MAX_CHART_LABELS).map((row) => (typeof row.difference === 'number' ? row.difference : null)) }],
        label: `Difference by ${dimension.dimension}`,
      };
    }
    views.push(view);
  });
  const oneSided = Array.isArray(result.one_sided) ? result.one_sided.filter(isRecord) : [];
  if (oneSided.length) {
    views.push({
      title: 'On one side only',
      subtitle: 'values whose amount equals the gap',
      // Values read as periods when every row's dimension is a period dimension.
      columns: [text('source'), text('dimension'), text('value', 'Value', oneSided.every((row) => isPeriodName(row.dimension)) ? 'period' : 'value'), num('amount', 'Amount')],
      rows: oneSided,
      notes: dims.length ? [] : explanation,
      csvName: ['one-sided'],
    });
  }
  return views;
}

function sourcesViews(result) {
  const sources = Array.isArray(result.sources) ? result.sources.filter(isRecord) : [];
  if (!sources.length) return [];
  const names = (list) => (Array.isArray(list) ? list.map((item) => (isRecord(item) ? item.name : item)).join(', ') : '');
  const rows = sources.map((source) => ({
    name: source.name,
    description: source.description,
    dimensions: names(source.dimensions),
    measures: names(source.measures),
  }));
  return [{ title: 'Sources', subtitle: plural(rows.length, 'source'), columns: [text('name'), text('description'), text('dimensions'), text('measures')], rows, notes: [], csvName: ['sources'] }];
}

/** Any other result: its first list of records becomes a table. */
function genericViews(result, name) {
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value) || !value.length || !value.every(isRecord)) continue;
    const keys = unique(value.flatMap((row) => Object.keys(row))).slice(0, 20);
    const columns = keys.map((k) => (value.every((row) => row[k] === null || row[k] === undefined || typeof row[k] === 'number') ? num(k, humanize(k)) : text(k)));
    return [{ title: `${name}: ${humanize(key).toLowerCase()}`, subtitle: plural(value.length, 'row'), columns, rows: value, notes: [], csvName: [name, key] }];
  }
  return [];
}
