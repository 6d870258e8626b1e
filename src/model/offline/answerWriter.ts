/**
 * Writes the offline model's answers from tool results only: every figure in the text comes
 * from a result, formatted with thousands separators and its currency.
 */
import { describePeriod } from '../../catalog/periods.ts';
import { formatAmount, formatPercent } from '../../shared/format.ts';

type Json = Record<string, any>;

const MAX_LISTED_ROWS = 15;

/** What the offline model can answer, with examples; used when it cannot parse a question. */
export function capabilitiesAnswer(sources: string[]): string {
  return [
    "I'm the built-in offline model, so I understand a fixed set of question forms. I can:",
    '- list the data sources: "Which sources are available?"',
    '- total or break down a measure: "Total amount in fi_reporting for company 1000 in December 2024", "amount by period for company 2000 in Q4 2024"',
    '- compare two sources: "Compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024"',
    '- compare versions: "Actual vs budget in consolidation_mart for company 3000 in November 2024"',
    `Sources: ${sources.join(', ')}. Connect an OpenAI-compatible model (OPENAI_BASE_URL) for free-form questions.`,
  ].join('\n');
}

export function sourcesAnswer(result: Json): string {
  const lines = [`There are ${result.sources.length} data sources:`];
  for (const source of result.sources) {
    const measures = source.measures.map((m: Json) => `${m.name} (${m.unit})`).join(', ');
    lines.push(`- ${source.name}: ${source.description} Measures: ${measures}. Dimensions: ${source.dimensions.map((d: Json) => d.name).join(', ')}.`);
  }
  if (result.comparable_pairs.length) {
    lines.push('They can be compared pairwise:');
    for (const pair of result.comparable_pairs) {
      lines.push(`- ${pair.source_a} vs ${pair.source_b} on ${pair.common_dimensions.join(', ')} (default alignment: ${pair.default_align_on.join(' × ') || 'totals'})`);
    }
  }
  return lines.join('\n');
}

/** "company 1000, December 2024 (2024012)". */
export function describeFilters(filters: Json | undefined, skip: string[] = []): string {
  const parts = Object.entries(filters ?? {})
    .filter(([name]) => !skip.includes(name))
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${describeValue(name, value)}`);
  return parts.join(', ');
}

function describeValue(name: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => describeValue(name, v)).join(', ');
  if (value && typeof value === 'object') {
    const range = value as { from?: string; to?: string };
    return `${range.from ? describeValue(name, range.from) : '…'} to ${range.to ? describeValue(name, range.to) : '…'}`;
  }
  if (value === null) return '(blank)';
  const text = String(value);
  return name === 'period' && /^\d{7}$/.test(text) ? `${describePeriod(text)} (${text})` : text;
}

export function queryAnswer(result: Json): string {
  const measures: Json[] = result.measures;
  const scope = describeFilters(result.filters);
  const head = `${measures.map((m) => m.name).join(', ')} in ${result.source}${scope ? ` for ${scope}` : ''}`;
  if (result.row_count === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  const groupDimensions = (result.dimensions as string[]).filter((d) => d !== 'currency');
  const value = (row: Json) =>
    measures.map((m) => `${measures.length > 1 ? `${m.name} ` : ''}${formatMeasure(row[m.name], m, row)}`).join(', ');
  if (groupDimensions.length === 0) {
    if (result.rows.length === 1) return `Total ${head}: ${value(result.rows[0])}.`;
    return [`Total ${head}, per currency (amounts in different currencies are not added):`, ...result.rows.map((row: Json) => `- ${row.currency}: ${value(row)}`)].join('\n');
  }
  const lines = [`${head}, by ${groupDimensions.join(' and ')} (${result.total_rows} row${result.total_rows === 1 ? '' : 's'}):`];
  for (const row of result.rows.slice(0, MAX_LISTED_ROWS)) {
    lines.push(`- ${groupDimensions.map((d) => describeValue(d, row[d])).join(', ')}: ${value(row)}`);
  }
  if (result.total_rows > MAX_LISTED_ROWS) lines.push(`(${result.total_rows - MAX_LISTED_ROWS} more rows in the tool result.)`);
  return lines.join('\n');
}

function formatMeasure(value: unknown, measure: Json, row: Json): string {
  if (typeof value !== 'number') return 'no value';
  const unit = String(measure.unit);
  if (unit.startsWith('currency in dimension')) return formatAmount(value, row.currency ?? null);
  if (unit === 'number' || unit === 'lines') return measure.aggregation === 'count' ? `${value}` : formatAmount(value);
  return formatAmount(value, unit);
}

/** The comparison, its totals per currency, the largest gaps, and the explanation if one was asked for. */
export function comparisonAnswer(result: Json, explanation: Json | undefined): string {
  const labelA = sideLabel(result, 'a');
  const labelB = sideLabel(result, 'b');
  const measure = result.measure_a.name === result.measure_b.name ? result.measure_a.name : `${result.measure_a.name} vs ${result.measure_b.name}`;
  const sameSource = result.source_a === result.source_b;
  const scope = describeFilters(result.filters_a, sameSource ? ['version'] : []);
  const lines = [`Comparison of ${measure}: ${labelA} vs ${labelB}${scope ? ` for ${scope}` : ''}.`];
  const summary = result.summary;
  if (summary.aligned_rows === 0) return `${lines[0]} Neither side has data for these filters.`;
  for (const total of summary.totals) {
    const currency = total.currency ?? null;
    const percent = total.difference_percent === null ? '' : ` (${formatPercent(total.difference_percent)} of ${labelA})`;
    lines.push(
      `- ${labelA}: ${formatAmount(total.total_a, currency)}; ${labelB}: ${formatAmount(total.total_b, currency)}; difference: ${formatAmount(total.difference, currency)}${percent}.`,
    );
  }
  lines.push(result.interpretation);
  const aligned = (result.align_on as string[]).filter((d) => d !== 'currency');
  // Dimensions pinned to one value by a filter on both sides are already said in the first line.
  const pinned = (name: string) => typeof result.filters_a?.[name] === 'string' && result.filters_a[name] === result.filters_b?.[name];
  const shown = (dimensions: string[]) => (dimensions.some((d) => !pinned(d)) ? dimensions.filter((d) => !pinned(d)) : dimensions);
  const rows: Json[] = result.top_differences;
  if (rows.length > 1 || (rows.length === 1 && summary.aligned_rows > 1)) {
    lines.push(`Largest differences (by ${aligned.join(' × ')}):`);
    for (const row of rows.slice(0, 5)) lines.push(`- ${differenceLine(row, shown(aligned), labelA, labelB)}`);
  }
  if (explanation && !explanation.error && explanation.explanation) {
    lines.push(`Why: ${explanation.explanation}`);
    const dimensions: Json[] = explanation.by_dimension ?? [];
    // List the dimension the explanation is about: the uniform-rate one, else the most concentrated.
    const best = dimensions.find((d) => d.uniform_percent !== undefined) ?? dimensions[0];
    if (best) {
      lines.push(`By ${best.dimension.replace(/_/g, ' ')}:`);
      for (const value of best.values.slice(0, 5)) {
        lines.push(`- ${describeValue(best.dimension, value.value)}: ${labelA} ${formatAmount(value.a ?? 0, explanation.gap?.currency)} vs ${labelB} ${formatAmount(value.b ?? 0, explanation.gap?.currency)}, difference ${formatAmount(value.difference, explanation.gap?.currency)} (${value.share_percent}% of the gap)`);
      }
    }
  }
  return lines.join('\n');
}

function differenceLine(row: Json, dimensions: string[], labelA: string, labelB: string): string {
  const where = dimensions.map((d) => `${d.replace(/_/g, ' ')} ${describeValue(d, row[d])}`).join(', ');
  const currency = row.currency ?? null;
  if (row.status === 'only_in_a') return `${where}: only in ${labelA} (${formatAmount(row.a, currency)})`;
  if (row.status === 'only_in_b') return `${where}: only in ${labelB} (${formatAmount(row.b, currency)})`;
  const higher = row.difference > 0 ? labelA : labelB;
  return `${where}: ${labelA} ${formatAmount(row.a, currency)} vs ${labelB} ${formatAmount(row.b, currency)}, ${higher} higher by ${formatAmount(Math.abs(row.difference), currency)} (${row.status.replace('_', ' ')})`;
}

function sideLabel(result: Json, side: 'a' | 'b'): string {
  const source = result[`source_${side}`];
  if (result.source_a !== result.source_b) return source;
  const version = result[`filters_${side}`]?.version;
  return version ? `${source} ${Array.isArray(version) ? version.join('+') : version}` : `${source} (${side})`;
}

/** A failed tool call, explained with the error's own message and hint. */
export function errorAnswer(toolName: string, error: Json): string {
  return `I could not answer with ${toolName}: ${error.message}${error.hint ? ` ${error.hint}` : ''}`;
}
