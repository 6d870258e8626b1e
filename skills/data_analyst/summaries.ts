/**
 * One-line summaries of the data_analyst tools' results (each tool's `summarize`): what the
 * context window keeps of an old result, and what a run cut off at its step limit reports.
 * They read fields defensively: a summary must never fail on a result it did not expect.
 */
import { formatAmount, isObject, type Json } from '../../src/skills/api.ts';

/**
 * compare_sources: the aligned rows by status, the largest gap and the totals.
 * @example
 * describeComparison(result) // 'compare_sources fi_reporting vs bpc_reporting amount [cmp_1]: 1 aligned row: 1 major_diff. Largest gap …'
 */
export function describeComparison(result: Json): string {
  const summary = isObject(result.summary) ? result.summary : {};
  const measure = [result.measure_a, result.measure_b].map((m) => (isObject(m) && typeof m.name === 'string' ? m.name : undefined));
  const measureText = measure[0] && measure[1] ? ` ${measure[0] === measure[1] ? measure[0] : `${measure[0]}/${measure[1]}`}` : '';
  const id = typeof result.comparison_id === 'string' ? ` [${result.comparison_id}]` : '';
  const counts = ['match', 'minor_diff', 'major_diff', 'only_in_a', 'only_in_b']
    .filter((key) => typeof summary[key] === 'number' && summary[key] !== 0)
    .map((key) => `${String(summary[key])} ${key}`);
  const alignedRows = summary.aligned_rows;
  const aligned = typeof alignedRows === 'number' ? `${alignedRows} aligned row${alignedRows === 1 ? '' : 's'}${counts.length ? `: ${counts.join(', ')}` : ''}.` : '';
  const empty = Array.isArray(result.sides_without_rows) ? result.sides_without_rows : [];
  const totals = Array.isArray(summary.totals)
    ? summary.totals
        .filter(isObject)
        .map((t) => {
          const currency = typeof t.currency === 'string' ? t.currency : null;
          const side = (name: string, value: unknown) => (empty.includes(name) ? 'no rows' : amount(value, currency));
          return `Total ${side('a', t.total_a)} vs ${side('b', t.total_b)}.`;
        })
        .join(' ')
    : '';
  // The counts say how the rows align; of the interpretation, the largest gap is what they do not say.
  const interpretation = typeof result.interpretation === 'string' ? result.interpretation : '';
  const largestGap = aligned ? /Largest gap\b.*$/.exec(interpretation)?.[0] : undefined;
  const reading = largestGap ?? (aligned && /^(Full alignment|Nothing to compare: neither)/.test(interpretation) ? '' : interpretation);
  return `compare_sources ${String(result.source_a)} vs ${String(result.source_b)}${measureText}${id}: ${[aligned, reading, totals].filter(Boolean).join(' ')}`;
}

/**
 * explain_difference: its explanation (or the gap, when it has none).
 * @example
 * describeExplanation(result) // 'explain_difference: The gap of 110,000.00 EUR …'
 */
export function describeExplanation(result: Json): string {
  const explanation = typeof result.explanation === 'string' ? result.explanation : '';
  const gap = isObject(result.gap) && typeof result.gap.difference === 'number' ? result.gap : undefined;
  const gapText = gap && !explanation ? ` gap ${amount(gap.difference, typeof gap.currency === 'string' ? gap.currency : null)}.` : '';
  return `explain_difference:${gapText} ${explanation}`.trim();
}

/**
 * query_source: how many rows of which measures by which dimensions, and the first row.
 * @example
 * describeQuery(result) // 'query_source fi_reporting: 1 row of amount by currency. row: {"currency":"EUR","amount":443100}'
 */
export function describeQuery(result: Json): string {
  const measures = Array.isArray(result.measures) ? result.measures.map((m) => (isObject(m) ? String(m.name) : String(m))) : [];
  const dimensions = Array.isArray(result.dimensions) ? result.dimensions.map(String) : [];
  const rows = Array.isArray(result.rows) ? result.rows : [];
  const count = typeof result.row_count === 'number' ? result.row_count : rows.length;
  const total = typeof result.total_rows === 'number' && result.total_rows !== count ? ` of ${result.total_rows}` : '';
  const filters = isObject(result.filters) && Object.keys(result.filters).length ? `, filters ${JSON.stringify(result.filters)}` : '';
  const shape = `${measures.join(', ') || 'measures'}${dimensions.length ? ` by ${dimensions.join(', ')}` : ''}`;
  const first = rows[0] === undefined ? '' : ` ${rows.length === 1 ? 'row' : 'first row'}: ${JSON.stringify(rows[0])}`;
  return `query_source ${String(result.source)}: ${count}${total} row${count === 1 ? '' : 's'} of ${shape}${filters}.${first}`;
}

/**
 * list_differences: the page of differences and the largest of them.
 * @example
 * describeDifferences(result) // 'list_differences cmp_1 (fi_reporting vs bpc_reporting): 20 rows of 42 differing from offset 0. …'
 */
export function describeDifferences(result: Json): string {
  const rows = Array.isArray(result.rows) ? result.rows : [];
  const differing = typeof result.differing_rows === 'number' ? ` of ${result.differing_rows} differing` : '';
  const first = rows[0] === undefined ? '' : ` Largest: ${JSON.stringify(rows[0])}`;
  return `list_differences ${String(result.comparison_id)} (${String(result.source_a)} vs ${String(result.source_b)}): ${rows.length} rows${differing} from offset ${String(result.offset ?? 0)}.${first}`;
}

/**
 * list_sources: the sources, how many pairs compare, the group currency.
 * @example
 * describeSources(result) // 'list_sources: 4 sources (fi_reporting, …); 6 comparable pairs; group currency EUR.'
 */
export function describeSources(result: Json): string {
  const names = Array.isArray(result.sources) ? result.sources.map((s) => (isObject(s) ? String(s.name) : String(s))) : [];
  const pairs = Array.isArray(result.comparable_pairs) ? `; ${result.comparable_pairs.length} comparable pairs` : '';
  const currency = typeof result.group_currency === 'string' ? `; group currency ${result.group_currency}` : '';
  return `list_sources: ${names.length} sources (${names.join(', ')})${pairs}${currency}.`;
}

function amount(value: unknown, currency: string | null): string {
  return typeof value === 'number' ? formatAmount(value, currency) : String(value);
}
