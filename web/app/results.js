/**
 * Turns tool results into views: tables (columns + rows), an optional chart, notes. Pure data,
 * no DOM: chat.js draws them. Knows the data_analyst tools; any other result that holds a list
 * of records still becomes a table.
 */
import { formatValue, humanize } from './format.js';

/** At most this many categories in a chart; the table always has every row. */
export const MAX_CHART_LABELS = 30;
const MAX_CHART_SERIES = 6;

const num = (key, label, kind = 'number') => ({ key, label, kind });
const text = (key, label = humanize(key)) => ({ key, label, kind: 'text' });
const isRecord = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const unique = (values) => [...new Set(values)];
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A one-line description of a call for its summary row: `fi_reporting vs bpc_reporting`. */
export function describeCall(call) {
  const args = isRecord(call.args) ? call.args : {};
  switch (call.name) {
    case 'query_source': {
      const measures = Array.isArray(args.measures) ? args.measures.join(', ') : '';
      const dims = Array.isArray(args.dimensions) && args.dimensions.length ? ` by ${args.dimensions.join(', ')}` : '';
      return [args.source, measures].filter(Boolean).join(' · ') + dims;
    }
    case 'compare_sources': {
      const measure = typeof args.measure === 'string' ? ` · ${args.measure}` : '';
      return `${args.source_a ?? '?'} vs ${args.source_b ?? '?'}${measure}`;
    }
    case 'explain_difference':
    case 'list_differences':
      return args.comparison_id ? String(args.comparison_id) : isRecord(args.comparison) ? `${args.comparison.source_a} vs ${args.comparison.source_b}` : '';
    default:
      return '';
  }
}

/**
 * The views of one tool call (empty for failures and results with nothing tabular). `calls` are
 * the other calls of the answer: explain_difference takes the source names from its comparison.
 */
export function viewsFor(call, calls = []) {
  if (!call || call.ok === false || !isRecord(call.result)) return [];
  const result = call.result;
  const views = (() => {
    switch (call.name) {
      case 'query_source':
        return queryViews(result);
      case 'compare_sources':
        return compareViews(result);
      case 'explain_difference':
        return explainViews(result, sidesOf(call, calls));
      case 'list_differences':
        return differencesViews(result, result.rows, `${result.source_a} vs ${result.source_b}: differences`, result.note ? [result.note] : []);
      case 'list_sources':
        return sourcesViews(result);
      default:
        return genericViews(result, call.name);
    }
  })();
  if (result.compacted) for (const view of views) view.notes.unshift('Preview: the complete result arrives with the answer.');
  return views.map((view, index) => ({ ...view, id: `${call.id ?? call.name}-${index}`, tool: call.name }));
}

function queryViews(result) {
  const rows = Array.isArray(result.rows) ? result.rows.filter(isRecord) : [];
  const measureNames = Array.isArray(result.measures) ? result.measures.map((m) => (isRecord(m) ? m.name : m)).filter(Boolean) : [];
  const dims = Array.isArray(result.dimensions) ? result.dimensions : Object.keys(rows[0] ?? {}).filter((k) => !measureNames.includes(k));
  const columns = [...dims.map((d) => text(d)), ...measureNames.map((m) => num(m, humanize(m)))];
  const shown = rows.length;
  const total = typeof result.total_rows === 'number' ? result.total_rows : shown;
  const subtitle = `${plural(shown, 'row')}${total > shown ? ` of ${total.toLocaleString('en-US')}` : ''}`;
  const notes = Array.isArray(result.notes) ? result.notes.map(String) : [];
  if (result.truncated) notes.push(`Only the first ${shown} of ${total} rows are shown.`);
  const labelDims = dims.filter((d) => d !== 'currency');
  let chart;
  if (labelDims.length > 0 && rows.length >= 2 && measureNames.length > 0) {
    const labelOf = (row) => labelDims.map((d) => formatValue(row[d]) || '(blank)').join(' · ');
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

function differencesViews(result, list, title, notes = [], alignOn = undefined) {
  const rows = Array.isArray(list) ? list.filter(isRecord) : [];
  if (!rows.length) return [];
  const a = result.source_a ?? 'A';
  const b = result.source_b ?? 'B';
  const keys = keyColumnsOf(rows, alignOn);
  const columns = [
    ...keys.map((k) => text(k)),
    num('a', String(a)),
    num('b', String(b)),
    num('difference', 'Difference'),
    num('difference_percent', 'Difference %', 'percent'),
    { key: 'status', label: 'Status', kind: 'status' },
  ];
  // Currency in the label only when the rows are in more than one.
  const labelKeys = keys.filter((k) => k !== 'currency' || unique(rows.map((row) => row.currency)).length > 1);
  const chartRows = rows.slice(0, MAX_CHART_LABELS);
  const labelOf = (row) => (labelKeys.length ? labelKeys.map((k) => formatValue(row[k]) || '(blank)').join(' · ') : 'Total');
  const chart = {
    type: 'bar',
    labels: chartRows.map(labelOf),
    datasets: [
      { label: String(a), data: chartRows.map((row) => (typeof row.a === 'number' ? row.a : null)) },
      { label: String(b), data: chartRows.map((row) => (typeof row.b === 'number' ? row.b : null)) },
    ],
    label: `${a} vs ${b}${labelKeys.length ? ` by ${labelKeys.join(', ')}` : ''}`,
  };
  return [{ title, subtitle: plural(rows.length, 'row'), columns, rows, chart, notes, csvName: ['differences', a, b] }];
}

function compareViews(result) {
  const a = result.source_a ?? 'A';
  const b = result.source_b ?? 'B';
  const views = [];
  const totals = isRecord(result.summary) && Array.isArray(result.summary.totals) ? result.summary.totals.filter(isRecord) : [];
  const interpretation = typeof result.interpretation === 'string' ? [result.interpretation] : [];
  if (totals.length) {
    views.push({
      title: `${a} vs ${b}: totals`,
      subtitle: summaryLine(result.summary),
      columns: [text('currency'), num('total_a', String(a)), num('total_b', String(b)), num('difference', 'Difference'), num('difference_percent', 'Difference %', 'percent')],
      rows: totals,
      notes: interpretation,
      csvName: ['totals', a, b],
    });
  }
  const differences = differencesViews(result, result.top_differences, `${a} vs ${b}: largest differences`, Array.isArray(result.notes) ? result.notes.map(String) : [], result.align_on);
  if (differences.length) views.push(...differences);
  else if (totals.length) {
    views[0].chart = {
      type: 'bar',
      labels: totals.map((row) => formatValue(row.currency) || 'Total'),
      datasets: [
        { label: String(a), data: totals.map((row) => row.total_a ?? null) },
        { label: String(b), data: totals.map((row) => row.total_b ?? null) },
      ],
      label: `${a} vs ${b} by currency`,
    };
  }
  return views;
}

/** Source names of the comparison an explain_difference call explains. */
function sidesOf(call, calls) {
  const args = isRecord(call.args) ? call.args : {};
  if (isRecord(args.comparison)) return { a: args.comparison.source_a, b: args.comparison.source_b };
  const comparison = calls.find((other) => isRecord(other?.result) && other.result.comparison_id && other.result.comparison_id === args.comparison_id);
  return comparison ? { a: comparison.result.source_a, b: comparison.result.source_b } : {};
}

function explainViews(result, sides) {
  const views = [];
  const explanation = typeof result.explanation === 'string' ? [result.explanation] : [];
  const dims = Array.isArray(result.by_dimension) ? result.by_dimension.filter((d) => isRecord(d) && Array.isArray(d.values) && d.values.length) : [];
  dims.forEach((dimension, index) => {
    const rows = dimension.values.filter(isRecord);
    const view = {
      title: `Gap by ${humanize(dimension.dimension).toLowerCase()}`,
      subtitle: typeof dimension.explains_percent === 'number' ? `these values explain ${dimension.explains_percent}% of the gap` : '',
      columns: [text('value', humanize(dimension.dimension)), num('a', String(sides.a ?? 'A')), num('b', String(sides.b ?? 'B')), num('difference', 'Difference'), num('share_percent', 'Share of gap', 'percent')],
      rows,
      notes: index === 0 ? explanation : [],
      csvName: ['gap-by', dimension.dimension],
    };
    if (index === 0) {
      view.chart = {
        type: 'bar',
        horizontal: true,
        labels: rows.slice(0, MAX_CHART_LABELS).map((row) => formatValue(row.value) || '(blank)'),
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
      columns: [text('source'), text('dimension'), text('value'), num('amount', 'Amount')],
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
