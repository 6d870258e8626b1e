/**
 * How a tool's result is shown in the web chat, declared by the tool itself (`present`), so the
 * chat renders any tool's tables and charts without knowing the tool. A spec is small,
 * JSON-serialisable data: the server adds it to each tool call it returns (`presentation`),
 * and web/app/results.js draws it.
 *
 * Texts of a spec (caption, titles, labels, notes, CSV name parts) may hold placeholders the
 * chat fills in, in its locale:
 * - `{a}` and `{b}`: the names of the two sides of a comparison, `labels`, which the server
 *   computes once ({@link finishPresentation}); the chat only fills them in;
 * - `{number:1234.5}` and `{percent:59.6}`: a number or a percentage, formatted;
 * - `{period:2024012}` and `{period:2024010/2024012}`: a period or a span of periods, named.
 * Periods in its rows are YYYYPPP codes; `fiscal_year_start` tells the chat which month period 1 is.
 */

/** What a column holds, which decides how its cells read (numbers right-aligned, periods as months). */
export type ColumnRole =
  /** A grouping value: text, or a period (`October 2024`) when its dimension is a period dimension. */
  | 'dimension'
  /** An amount or a count. */
  | 'measure'
  /** A difference of two amounts (negative ones are marked). */
  | 'difference'
  /** A percentage; signed like another column when `signedBy` names it. */
  | 'percent'
  /** A status word such as `major_diff`, shown as a badge. */
  | 'status';

export interface ColumnSpec {
  /** The row field. */
  key: string;
  /** The header; default the key in words. May hold `{a}` / `{b}`. */
  label?: string;
  role: ColumnRole;
  /** For a dimension column: the dimension whose values it holds when not the key (a period dimension reads as months). */
  dimension?: string;
  /** For a dimension column: the row field naming each row's dimension (a column of values of several dimensions). */
  dimensionField?: string;
  /** For a percent column: the column whose sign the percentage takes (tools return sizes relative to side A). */
  signedBy?: string;
  /** The unit of a numeric column when every row has the same one, e.g. "EUR" or "documents". */
  unit?: string;
  /** The row field holding each row's currency, when amounts are in several currencies. */
  currencyField?: string;
  /** For a status column: each value's words (may hold `{a}` / `{b}`), e.g. `{ major_diff: 'Major difference' }`. */
  valueLabels?: Record<string, string>;
}

export interface SeriesSpec {
  /** The row field holding the values. */
  key: string;
  /** The legend; may hold `{a}` / `{b}`. */
  label: string;
  /** One series per distinct value of this row field (e.g. currency), the value appended to the legend in brackets. */
  splitBy?: string;
  /** The bracketed text for rows whose `splitBy` field is blank, e.g. "no currency". */
  splitBlank?: string;
}

export interface ChartSpec {
  kind: 'bar' | 'line';
  /** Bars along the vertical axis (long category names). */
  horizontal?: boolean;
  /** What the chart shows, for its accessible name; may hold `{a}` / `{b}`. */
  label: string;
  /** The columns whose values name a category, joined with " · "; none: every row is one category. */
  categories: string[];
  /** The category name when `categories` is empty or its values are blank; default "(blank)". */
  blank?: string;
  series: SeriesSpec[];
  /**
   * The row field holding each row's unit (e.g. `currency`): the chat draws one chart per unit,
   * its value axis titled with it, so EUR and USD never share an axis.
   */
  unitField?: string;
}

export interface ViewSpec {
  /** May hold `{a}` / `{b}`. */
  title: string;
  /** May hold `{a}` / `{b}`, `{number:…}`, `{percent:…}`. */
  subtitle?: string;
  /** Where the rows are in the result: a path of field names and indexes, e.g. `["summary", "totals"]`. */
  rowsAt?: (string | number)[];
  /** The rows themselves, when they are not a list of the result as it is (e.g. reshaped). */
  rows?: Record<string, unknown>[];
  columns: ColumnSpec[];
  chart?: ChartSpec;
  notes?: string[];
  /** Parts of the CSV file's name, e.g. `["totals", "{a}", "{b}"]`. */
  csvName: string[];
}

/** The sides of a comparison, as a result or the arguments that asked for it name them. */
export interface SidesSpec {
  /** Another call of the answer with the same id and complete sides names them when these do not. */
  comparison_id?: string;
  source_a?: string;
  source_b?: string;
  filters_a?: Record<string, unknown>;
  filters_b?: Record<string, unknown>;
  measure_a?: string;
  measure_b?: string;
}

export interface PresentationSpec {
  /** One line next to the tool's name in the list of calls, e.g. "{a} vs {b} · amount". */
  caption?: string;
  /** What the two sides of a comparison are (the chat finds `labels` by `comparison_id` across calls). */
  sides?: SidesSpec;
  /** The names of the two sides, `{a}` and `{b}` in the spec's texts; set by {@link finishPresentation}. */
  labels?: { a: string; b: string };
  /** Tables (each with an optional chart), in order. */
  views: ViewSpec[];
  /**
   * The calendar month the catalog's fiscal year starts in (4: 2025001 is April 2025), so the
   * chat names periods as the text answers do; absent for a January year. Set by the registry
   * ({@link withFiscalYearStart}), never by a tool.
   */
  fiscal_year_start?: number;
}

/**
 * A spec that says when the catalog's fiscal year starts, when that is not January (a January
 * year leaves the spec as it was, so its JSON stays as before).
 * @example
 * withFiscalYearStart({ views: [] }, 4) // { views: [], fiscal_year_start: 4 }
 * withFiscalYearStart({ views: [] }, 1) // { views: [] }
 */
export function withFiscalYearStart(spec: PresentationSpec, fiscalYearStart: number): PresentationSpec {
  return fiscalYearStart === 1 ? spec : { ...spec, fiscal_year_start: fiscalYearStart };
}

/**
 * "3 rows", "1 source": a count with its noun, plural when it is not one.
 * @example
 * plural(3, 'row') // '3 rows'
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * A field name as words, as the chat writes headers: underscores to spaces, first letter capital.
 * @example
 * humanize('group_account') // 'Group account'
 */
export function humanize(name: string): string {
  const text = String(name).replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type Filters = Record<string, unknown>;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Dimensions whose values are YYYYPPP periods (the chat's web/app/periods.js reads the same names). */
const PERIOD_NAME = /period|fiscper/i;
const PERIOD_CODE = /^\d{7}$/;
/** At most this many values of a list in a label; the rest are counted. */
const MAX_LIST_VALUES = 3;

/** JSON with sorted keys, so `{from, to}` and `{to, from}` compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  return JSON.stringify(value ?? null);
}

/**
 * A filter value in words, a period as a `{period:…}` placeholder the chat names in its locale.
 * @example
 * filterValueWords('period', { from: '2024010', to: '2024012' }) // '{period:2024010/2024012}'
 * filterValueWords('company', ['1000', '2000', '3000', '4000']) // '1000, 2000, 3000 +1'
 */
export function filterValueWords(dimension: string, value: unknown): string {
  const period = PERIOD_NAME.test(dimension);
  if (value === null || value === undefined || value === '') return '(blank)';
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_LIST_VALUES).map((item) => filterValueWords(dimension, item));
    return value.length > MAX_LIST_VALUES ? `${shown.join(', ')} +${value.length - MAX_LIST_VALUES}` : shown.join(', ');
  }
  if (isRecord(value)) {
    const { from, to } = value as { from?: unknown; to?: unknown };
    if (period && typeof from === 'string' && typeof to === 'string' && PERIOD_CODE.test(from) && PERIOD_CODE.test(to)) return from === to ? `{period:${from}}` : `{period:${from}/${to}}`;
    const end = (item: unknown) => filterValueWords(dimension, item);
    return from === undefined ? `to ${end(to)}` : to === undefined ? `from ${end(from)}` : `${end(from)}–${end(to)}`;
  }
  return period && PERIOD_CODE.test(String(value)) ? `{period:${String(value)}}` : String(value);
}

/**
 * What both sides of a comparison read, as a phrase: "company 1000, {period:2024012}" (a period
 * filter names only its period). Filters of one side only are left out: the side labels say them.
 * @example
 * scopeWords({ company: '1000', period: '2024012' }, { company: '1000', period: '2024012', version: 'ACTUAL' }) // 'company 1000, {period:2024012}'
 */
export function scopeWords(filtersA: unknown, filtersB: unknown = filtersA): string {
  const a = isRecord(filtersA) ? filtersA : {};
  const b = isRecord(filtersB) ? filtersB : {};
  return Object.keys(a)
    .filter((key) => key in b && canonical(a[key]) === canonical(b[key]))
    .map((key) => (PERIOD_NAME.test(key) ? filterValueWords(key, a[key]) : `${key.replace(/_/g, ' ')} ${filterValueWords(key, a[key])}`))
    .join(', ');
}

/**
 * The names of the two sides of a comparison: two sources keep their names; one source compared
 * with itself is named by the filter values that differ (`consolidation_mart ACTUAL`), and the
 * measure when the sides measure different things; undefined without both sources.
 * @example
 * sideLabelsOf({ source_a: 'fi', source_b: 'fi', filters_a: { period: '2024011' }, filters_b: { period: '2024012' } })
 * // { a: 'fi {period:2024011}', b: 'fi {period:2024012}' }
 */
export function sideLabelsOf(sides: SidesSpec & { filters?: unknown } | undefined): { a: string; b: string } | undefined {
  if (!sides || typeof sides.source_a !== 'string' || typeof sides.source_b !== 'string') return undefined;
  const { source_a: a, source_b: b } = sides;
  if (a !== b) return { a, b };
  const filtersA: Filters = isRecord(sides.filters_a) ? sides.filters_a : {};
  const filtersB: Filters = isRecord(sides.filters_b) ? sides.filters_b : {};
  const differing = [...new Set([...Object.keys(filtersA), ...Object.keys(filtersB)])].filter((key) => canonical(filtersA[key]) !== canonical(filtersB[key]));
  const measures = sides.measure_a && sides.measure_b && sides.measure_a !== sides.measure_b ? [sides.measure_a, sides.measure_b] : undefined;
  const label = (filters: Filters, measure: string | undefined) => [a, ...differing.filter((key) => key in filters).map((key) => filterValueWords(key, filters[key])), ...(measure ? [measure] : [])].join(' ');
  const labelA = label(filtersA, measures?.[0]);
  const labelB = label(filtersB, measures?.[1]);
  // Nothing tells them apart: at least say which side is which.
  return labelA === labelB ? { a: `${labelA} (side A)`, b: `${labelB} (side B)` } : { a: labelA, b: labelB };
}

/** The value at `path` (field names and indexes) of `value`. */
function at(value: unknown, path: readonly (string | number)[] | undefined): unknown {
  return (path ?? []).reduce<unknown>((current, step) => (current !== null && typeof current === 'object' ? (current as Record<string | number, unknown>)[step] : undefined), value);
}

/** A status column's words for the values its rows hold: the tool's own, else each value in words (`major_diff` → 'Major diff'). */
function statusWords(column: ColumnSpec, rows: unknown): Record<string, string> {
  const words: Record<string, string> = { ...column.valueLabels };
  for (const row of Array.isArray(rows) ? rows : []) {
    const value = isRecord(row) ? row[column.key] : undefined;
    if (typeof value === 'string' && value && !(value in words)) words[value] = humanize(value);
  }
  return words;
}

/**
 * A tool's spec as the chat receives it: the catalog's fiscal year when it does not start in
 * January, the sides' names computed once (`labels`), every column labelled and every status
 * word written (the chat writes no label of its own). The registry applies it to every spec.
 * @example
 * finishPresentation({ sides: { source_a: 'fi', source_b: 'bpc' }, views: [] }, 1).labels // { a: 'fi', b: 'bpc' }
 */
export function finishPresentation(spec: PresentationSpec, fiscalYearStart: number, result?: unknown): PresentationSpec {
  // Sides of one source without their filters (a page of an earlier comparison) are named by that comparison, by its id.
  const named = spec.sides && (spec.sides.source_a !== spec.sides.source_b || spec.sides.filters_a || spec.sides.filters_b);
  const labels = spec.labels ?? (named ? sideLabelsOf(spec.sides) : undefined);
  const views = spec.views.map((view) => {
    const rows = view.rows ?? at(result, view.rowsAt);
    const columns = view.columns.map((column) => ({
      ...column,
      label: column.label ?? humanize(column.key),
      ...(column.role === 'status' ? { valueLabels: statusWords(column, rows) } : {}),
    }));
    return { ...view, columns };
  });
  return withFiscalYearStart({ ...spec, ...(labels ? { labels } : {}), views }, fiscalYearStart);
}
