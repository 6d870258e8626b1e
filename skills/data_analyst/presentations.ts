/**
 * How the web chat shows the data_analyst tools' results (each tool's `present`): tables with
 * typed columns, a bar chart (one per currency), and the two sides of a comparison named `{a}`
 * and `{b}` (the registry names them once from `sides`; the chat fills them in). Each call's
 * caption says what it did in words. Specs point at the result's lists (`rowsAt`) rather than
 * copying them, so a call's payload does not grow.
 */
import { humanize, isObject, plural, scopeWords, type ColumnSpec, type PresentationSpec, type SidesSpec, type ViewSpec } from '../../src/skills/api.ts';

type Row = Record<string, unknown>;
const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];
const records = (list: unknown): Row[] => (Array.isArray(list) ? list.filter(isObject) : []);
const nameOf = (measure: unknown): string | undefined => (typeof measure === 'string' ? measure : isObject(measure) && typeof measure.name === 'string' ? measure.name : undefined);

/** The value columns of a comparison's rows: side a, side b, the difference, its percentage and status. */
const SIDE_COLUMNS: ColumnSpec[] = [
  { key: 'a', label: '{a}', role: 'measure' },
  { key: 'b', label: '{b}', role: 'measure' },
  { key: 'difference', label: 'Difference', role: 'difference' },
  // Tools return the size of a difference relative to side A; the table signs it like the difference.
  { key: 'difference_percent', label: 'Difference %', role: 'percent', signedBy: 'difference' },
  {
    key: 'status',
    label: 'Status',
    role: 'status',
    valueLabels: { match: 'Match', minor_diff: 'Minor difference', major_diff: 'Major difference', only_in_a: 'Only in {a}', only_in_b: 'Only in {b}' },
  },
];

/** " for company 1000, {period:2024012}": what both sides read, or nothing. */
const forScope = (filtersA: unknown, filtersB?: unknown): string => {
  const scope = scopeWords(filtersA, filtersB ?? filtersA);
  return scope ? ` for ${scope}` : '';
};

/**
 * The sides of a comparison as the chat names them, from a result or the arguments asking for one.
 * @example
 * sidesOf({ source_a: 'fi', source_b: 'fi', filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } })
 * // { source_a: 'fi', source_b: 'fi', filters_a: {...}, filters_b: {...} }
 */
export function sidesOf(record: Row, comparisonId?: string): SidesSpec {
  const measure = record.measure;
  const measureA = nameOf(record.measure_a) ?? (isObject(measure) ? nameOf(measure.a) : undefined);
  const measureB = nameOf(record.measure_b) ?? (isObject(measure) ? nameOf(measure.b) : undefined);
  return {
    ...(comparisonId ? { comparison_id: comparisonId } : {}),
    ...(typeof record.source_a === 'string' ? { source_a: record.source_a } : {}),
    ...(typeof record.source_b === 'string' ? { source_b: record.source_b } : {}),
    ...(isObject(record.filters_a) ? { filters_a: record.filters_a } : {}),
    ...(isObject(record.filters_b) ? { filters_b: record.filters_b } : {}),
    ...(measureA ? { measure_a: measureA } : {}),
    ...(measureB ? { measure_b: measureB } : {}),
  };
}

/**
 * A table of differing rows (with a chart of both sides), or undefined when there are none.
 * @example
 * differencesView(result.rows, ['rows'], '{a} vs {b}: differences') // { title, columns, chart, csvName: ['differences', '{a}', '{b}'], ... }
 */
export function differencesView(list: unknown, rowsAt: (string | number)[], title: string, notes: string[] = [], alignOn?: readonly string[]): ViewSpec | undefined {
  const rows = records(list);
  if (!rows.length) return undefined;
  const valueKeys = SIDE_COLUMNS.map((column) => column.key);
  const keys = alignOn?.length ? alignOn.filter((k) => rows.some((row) => k in row)) : unique(rows.flatMap((row) => Object.keys(row))).filter((k) => !valueKeys.includes(k));
  // Currency names a bar only when the rows are in more than one; a key that is the same in
  // every row (company 1000 of a one-company comparison) neither, when another key varies.
  const varies = (k: string) => unique(rows.map((row) => JSON.stringify(row[k] ?? null))).length > 1;
  const withoutCurrency = keys.filter((k) => k !== 'currency' || varies(k));
  const labelKeys = withoutCurrency.some(varies) ? withoutCurrency.filter(varies) : withoutCurrency;
  return {
    title,
    subtitle: plural(rows.length, 'row'),
    rowsAt,
    columns: [...keys.map((key): ColumnSpec => ({ key, role: 'dimension' })), ...SIDE_COLUMNS],
    chart: {
      kind: 'bar',
      label: `{a} vs {b}${labelKeys.length ? ` by ${labelKeys.join(', ')}` : ''}`,
      categories: labelKeys,
      blank: labelKeys.length ? '(blank)' : 'Total',
      series: [
        { key: 'a', label: '{a}' },
        { key: 'b', label: '{b}' },
      ],
      ...(keys.includes('currency') ? { unitField: 'currency' } : {}),
    },
    notes,
    csvName: ['differences', '{a}', '{b}'],
  };
}

/** "12 aligned rows: 2 minor, 10 major". */
function summaryLine(summary: unknown): string {
  if (!isObject(summary)) return '';
  const words: [string, string][] = [
    ['match', 'match'],
    ['minor_diff', 'minor'],
    ['major_diff', 'major'],
    ['only_in_a', 'only in A'],
    ['only_in_b', 'only in B'],
  ];
  const parts = words.filter(([key]) => typeof summary[key] === 'number' && (summary[key] as number) > 0).map(([key, word]) => `${String(summary[key])} ${word}`);
  const aligned = typeof summary.aligned_rows === 'number' ? plural(summary.aligned_rows, 'aligned row') : '';
  return [aligned, parts.join(', ')].filter(Boolean).join(': ');
}

/**
 * A comparison: its totals per currency, then its largest differences (or, with none, a chart of the totals).
 * @example
 * presentComparison(result, args).views.map((view) => view.title) // ['{a} vs {b}: totals', '{a} vs {b}: largest differences']
 */
export function presentComparison(result: Row, input: Row): PresentationSpec {
  const summary = isObject(result.summary) ? result.summary : {};
  const totals = records(summary.totals);
  // A side without rows has no total (its 0 is a placeholder): only the other side's column is shown.
  const empty = Array.isArray(result.sides_without_rows) && result.sides_without_rows.length === 1 ? String(result.sides_without_rows[0]) : undefined;
  const views: ViewSpec[] = [];
  if (totals.length) {
    views.push({
      title: '{a} vs {b}: totals',
      subtitle: summaryLine(summary),
      rowsAt: ['summary', 'totals'],
      columns: [
        { key: 'currency', role: 'dimension' },
        ...(empty === 'a' ? [] : [{ key: 'total_a', label: '{a}', role: 'measure' } as const]),
        ...(empty === 'b' ? [] : [{ key: 'total_b', label: '{b}', role: 'measure' } as const]),
        ...(empty ? [] : SIDE_COLUMNS.slice(2, 4)),
      ],
      notes: typeof result.interpretation === 'string' ? [result.interpretation] : [],
      csvName: ['totals', '{a}', '{b}'],
    });
  }
  const notes = Array.isArray(result.notes) ? result.notes.map(String) : [];
  const alignOn = Array.isArray(result.align_on) ? result.align_on.map(String) : undefined;
  const differences = differencesView(result.top_differences, ['top_differences'], '{a} vs {b}: largest differences', notes, alignOn);
  if (differences) views.push(differences);
  else if (views[0]) {
    views[0].chart = {
      kind: 'bar',
      label: '{a} vs {b} by currency',
      categories: ['currency'],
      blank: 'Total',
      series: [
        { key: 'total_a', label: '{a}' },
        { key: 'total_b', label: '{b}' },
      ],
      unitField: 'currency',
    };
  }
  const measure = typeof input.measure === 'string' ? ` · ${input.measure}` : '';
  const id = typeof result.comparison_id === 'string' ? result.comparison_id : undefined;
  return { caption: `Compared {a} with {b}${forScope(result.filters_a, result.filters_b)}${measure}`, sides: sidesOf(result, id), views };
}

/** Measures in a query's caption. */
const CAPTION_MEASURES_SEPARATOR = ', ';

/**
 * A query: one table of its rows, and a bar chart of its measures by its dimensions (split by currency).
 * @example
 * presentQuery(result, { source: 'fi_reporting', dimensions: ['period'] }).caption // 'fi_reporting · amount by period'
 */
export function presentQuery(result: Row, input: Row): PresentationSpec {
  const rows = records(result.rows);
  const measureNames = Array.isArray(result.measures) ? result.measures.map(nameOf).filter((m): m is string => Boolean(m)) : [];
  const dims = Array.isArray(result.dimensions) ? result.dimensions.map(String) : Object.keys(rows[0] ?? {}).filter((k) => !measureNames.includes(k));
  const shown = rows.length;
  const total = typeof result.total_rows === 'number' ? result.total_rows : shown;
  const notes = Array.isArray(result.notes) ? result.notes.map(String) : [];
  if (result.truncated) notes.push(`Only the first ${shown} of ${total} rows are shown.`);
  const labelDims = dims.filter((d) => d !== 'currency');
  const view: ViewSpec = {
    title: `${typeof result.source === 'string' ? result.source : 'Query'}${labelDims.length ? ` by ${labelDims.map(humanize).join(', ').toLowerCase()}` : ''}`,
    subtitle: `${plural(shown, 'row')}${total > shown ? ` of {number:${total}}` : ''}`,
    rowsAt: ['rows'],
    columns: [...dims.map((key): ColumnSpec => ({ key, role: 'dimension' })), ...measureNames.map((key): ColumnSpec => ({ key, role: 'measure', ...(dims.includes('currency') ? { currencyField: 'currency' } : {}) }))],
    notes,
    csvName: ['query', ...(typeof result.source === 'string' ? [result.source] : []), ...labelDims],
  };
  if (labelDims.length > 0 && rows.length >= 2 && measureNames.length > 0) {
    view.chart = {
      kind: 'bar',
      label: `${humanize(measureNames[0]!)} by ${labelDims.join(', ')}`,
      categories: labelDims,
      series: measureNames.map((key) => ({ key, label: humanize(key), ...(dims.includes('currency') ? { splitBy: 'currency', splitBlank: 'no currency' } : {}) })),
      ...(dims.includes('currency') ? { unitField: 'currency' } : {}),
    };
  }
  const measures = Array.isArray(input.measures) ? ` ${input.measures.join(CAPTION_MEASURES_SEPARATOR)} from` : '';
  const by = Array.isArray(input.dimensions) && input.dimensions.length ? ` by ${input.dimensions.join(', ')}` : '';
  return { caption: `Read${measures} ${String(input.source)}${by}${forScope(input.filters)}`, views: [view] };
}

/**
 * The caption and sides of a call about an earlier comparison, by its arguments or by its id
 * (the chat names `{a}` and `{b}` from the call of the conversation with that id). The caption
 * says what the call did; the id stays out of it (the arguments show it).
 */
function comparisonReference(input: Row, result: Row, did: string): Pick<PresentationSpec, 'caption' | 'sides'> {
  const id = typeof input.comparison_id === 'string' ? input.comparison_id : typeof result.comparison_id === 'string' ? result.comparison_id : undefined;
  if (isObject(input.comparison) && 'source_a' in input.comparison && 'source_b' in input.comparison) {
    const comparison = input.comparison;
    const shared = isObject(comparison.filters) ? comparison.filters : {};
    return { caption: `${did}${forScope({ ...shared, ...(isObject(comparison.filters_a) ? comparison.filters_a : {}) }, { ...shared, ...(isObject(comparison.filters_b) ? comparison.filters_b : {}) })}`, sides: sidesOf(comparison, id) };
  }
  return { caption: did, sides: sidesOf(result, id) };
}

/** A breakdown that says nothing: every value blank (one "(blank)" row holding the whole gap). */
const allBlank = (values: Row[]): boolean => values.every((row) => row.value === null || row.value === undefined || row.value === '');

/**
 * An explanation: the gap by each dimension (the first with a chart), and values on one side only.
 * @example
 * presentExplanation(result, { comparison_id: 'cmp_1' }).views[0]?.title // 'Gap by group account'
 */
export function presentExplanation(result: Row, input: Row): PresentationSpec {
  const views: ViewSpec[] = [];
  const explanation = typeof result.explanation === 'string' ? [result.explanation] : [];
  const byDimension = Array.isArray(result.by_dimension) ? result.by_dimension : [];
  const blank: string[] = [];
  byDimension.forEach((dimension: unknown, index) => {
    if (!isObject(dimension) || typeof dimension.dimension !== 'string' || !records(dimension.values).length) return;
    const name = dimension.dimension;
    if (allBlank(records(dimension.values))) return void blank.push(humanize(name).toLowerCase());
    const first = views.length === 0;
    views.push({
      title: `Gap by ${humanize(name).toLowerCase()}`,
      subtitle: typeof dimension.explains_percent === 'number' ? `these values explain {percent:${dimension.explains_percent}} of the gap` : '',
      rowsAt: ['by_dimension', index, 'values'],
      columns: [
        { key: 'value', label: humanize(name), role: 'dimension', dimension: name },
        ...SIDE_COLUMNS.slice(0, 3),
        { key: 'share_percent', label: 'Share of gap', role: 'percent' },
      ],
      notes: first ? explanation : [],
      csvName: ['gap-by', name],
      ...(first ? { chart: { kind: 'bar' as const, horizontal: true, label: `Difference by ${humanize(name).toLowerCase()}`, categories: ['value'], series: [{ key: 'difference', label: 'Difference' }] } } : {}),
    });
  });
  if (records(result.one_sided).length) {
    views.push({
      title: 'On one side only',
      subtitle: 'values whose amount equals the gap',
      rowsAt: ['one_sided'],
      columns: [
        { key: 'source', role: 'dimension' },
        { key: 'dimension', role: 'dimension' },
        // Each row's value belongs to the dimension its row names (a period reads as a month).
        { key: 'value', label: 'Value', role: 'dimension', dimensionField: 'dimension' },
        { key: 'amount', label: 'Amount', role: 'measure' },
      ],
      notes: views.length ? [] : explanation,
      csvName: ['one-sided'],
    });
  }
  if (blank.length) {
    const note = `${humanize(blank.join(', '))} ${blank.length === 1 ? 'is' : 'are'} blank on every row of the gap, so ${blank.length === 1 ? 'it does' : 'they do'} not explain it.`;
    views[0]?.notes?.push(note);
  }
  return { ...comparisonReference(input, result, 'Explained the gap between {a} and {b}'), views };
}

/**
 * A page of an earlier comparison's differences.
 * @example
 * presentDifferences(result, { comparison_id: 'cmp_1' }).views[0]?.title // '{a} vs {b}: differences'
 */
export function presentDifferences(result: Row, input: Row): PresentationSpec {
  const view = differencesView(result.rows, ['rows'], '{a} vs {b}: differences', typeof result.note === 'string' ? [result.note] : []);
  return { ...comparisonReference(input, result, 'Listed the differences between {a} and {b}'), views: view ? [view] : [] };
}

/**
 * The catalog: one row per source with its dimensions and measures.
 * @example
 * presentSources(result).views[0]?.title // 'Sources'
 */
export function presentSources(result: Row): PresentationSpec {
  const sources = records(result.sources);
  if (!sources.length) return { views: [] };
  const names = (list: unknown) => (Array.isArray(list) ? list.map((item) => (isObject(item) ? item.name : item)).join(', ') : '');
  const rows = sources.map((source) => ({ name: source.name, description: source.description, dimensions: names(source.dimensions), measures: names(source.measures) }));
  const columns: ColumnSpec[] = ['name', 'description', 'dimensions', 'measures'].map((key) => ({ key, role: 'dimension' }));
  return { views: [{ title: 'Sources', subtitle: plural(rows.length, 'source'), rows, columns, notes: [], csvName: ['sources'] }] };
}
