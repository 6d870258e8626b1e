/**
 * How a tool's result is shown in the web chat, declared by the tool itself (`present`), so the
 * chat renders any tool's tables and charts without knowing the tool. A spec is small,
 * JSON-serialisable data: the server adds it to each tool call it returns (`presentation`),
 * and web/app/results.js draws it.
 *
 * Texts of a spec (caption, titles, labels, notes, CSV name parts) may hold placeholders the
 * chat fills in, in its locale:
 * - `{a}` and `{b}`: the names of the two sides of a comparison (from `sides`, see web/app/labels.js);
 * - `{number:1234.5}` and `{percent:59.6}`: a number or a percentage, formatted.
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
  /** Names `{a}` and `{b}` in the spec's texts. */
  sides?: SidesSpec;
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
