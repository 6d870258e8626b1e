/**
 * Words the data_analyst skill's answers from its tool results: the sources, totals and
 * breakdowns, and comparisons with their explanation. Every figure comes from a result.
 */
import { sideLabels, type TextFormat } from '../../src/skills/answerText.ts';

type Json = Record<string, any>;

const MAX_LISTED_ROWS = 15;

/** The sources with their measures and dimensions, and which pairs can be compared. */
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

/** A total or a breakdown, per currency where amounts are in several. */
export function queryAnswer(result: Json, f: TextFormat): string {
  const measures: Json[] = result.measures;
  const scope = f.filters(result.filters);
  const head = `${measures.map((m) => m.name).join(', ')} in ${result.source}${scope ? ` for ${scope}` : ''}`;
  if (result.row_count === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  const groupDimensions = (result.dimensions as string[]).filter((d) => d !== 'currency');
  const value = (row: Json) =>
    measures.map((m) => `${measures.length > 1 ? `${m.name} ` : ''}${formatMeasure(row[m.name], m, row, f)}`).join(', ');
  if (groupDimensions.length === 0) {
    if (result.rows.length === 1) return `Total ${head}: ${value(result.rows[0])}.`;
    return [`Total ${head}, per currency (amounts in different currencies are not added):`, ...result.rows.map((row: Json) => `- ${row.currency}: ${value(row)}`)].join('\n');
  }
  const lines = [`${head}, by ${groupDimensions.join(' and ')} (${result.total_rows} row${result.total_rows === 1 ? '' : 's'}):`];
  for (const row of result.rows.slice(0, MAX_LISTED_ROWS)) {
    lines.push(`- ${groupDimensions.map((d) => f.value(d, row[d])).join(', ')}: ${value(row)}`);
  }
  if (result.total_rows > MAX_LISTED_ROWS) lines.push(`(${result.total_rows - MAX_LISTED_ROWS} more rows in the tool result.)`);
  return lines.join('\n');
}

function formatMeasure(value: unknown, measure: Json, row: Json, f: TextFormat): string {
  if (typeof value !== 'number') return 'no value';
  const unit = String(measure.unit);
  if (unit.startsWith('currency in dimension')) return f.amount(value, row.currency ?? null);
  if (unit === 'number' || unit === 'lines') return measure.aggregation === 'count' ? `${value}` : f.amount(value);
  return f.amount(value, unit);
}

/** The comparison, its totals per currency, the largest gaps, and the explanation if one was asked for. */
export function comparisonAnswer(result: Json, explanation: Json | undefined, f: TextFormat): string {
  const [labelA, labelB] = sideLabels(result);
  const measure = result.measure_a.name === result.measure_b.name ? result.measure_a.name : `${result.measure_a.name} vs ${result.measure_b.name}`;
  const sameSource = result.source_a === result.source_b;
  const scope = f.filters(result.filters_a, sameSource ? ['version'] : []);
  const lines = [`Comparison of ${measure}: ${labelA} vs ${labelB}${scope ? ` for ${scope}` : ''}.`];
  const summary = result.summary;
  if (summary.aligned_rows === 0) return `${lines[0]} Neither side has data for these filters.`;
  for (const total of summary.totals) {
    const currency = total.currency ?? null;
    // The tool's percentage is the size of the gap; its sign is the difference's (a − b).
    const percent = total.difference_percent === null ? '' : ` (${f.percent(Math.sign(total.difference) * Math.abs(total.difference_percent))} of ${labelA})`;
    lines.push(
      // A side without rows is said as such, never as 0.00 (compare_sources' sides_without_rows).
      result.sides_without_rows?.length
        ? `- ${labelA}: ${result.sides_without_rows.includes('a') ? 'no rows' : f.amount(total.total_a, currency)}; ${labelB}: ${result.sides_without_rows.includes('b') ? 'no rows' : f.amount(total.total_b, currency)}.`
        : `- ${labelA}: ${f.amount(total.total_a, currency)}; ${labelB}: ${f.amount(total.total_b, currency)}; difference: ${f.amount(total.difference, currency)}${percent}.`,
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
    for (const row of rows.slice(0, 5)) lines.push(`- ${differenceLine(row, shown(aligned), labelA, labelB, f)}`);
  }
  if (explanation && !explanation.error && explanation.explanation) {
    lines.push(`Why: ${explanation.explanation}`);
    const dimensions: Json[] = explanation.by_dimension ?? [];
    // List the dimension the explanation is about: the uniform-rate one, else the most concentrated.
    const best = dimensions.find((d) => d.uniform_percent !== undefined) ?? dimensions[0];
    if (best) {
      lines.push(`By ${best.dimension.replace(/_/g, ' ')}:`);
      for (const value of best.values.slice(0, 5)) {
        lines.push(`- ${f.value(best.dimension, value.value)}: ${labelA} ${f.amount(value.a ?? 0, explanation.gap?.currency)} vs ${labelB} ${f.amount(value.b ?? 0, explanation.gap?.currency)}, difference ${f.amount(value.difference, explanation.gap?.currency)} (${value.role === 'offset' ? `offsets the gap, ${value.share_percent}%` : `${value.share_percent}% of the gap`})`);
      }
    }
  }
  return lines.join('\n');
}

function differenceLine(row: Json, dimensions: string[], labelA: string, labelB: string, f: TextFormat): string {
  const where = dimensions.map((d) => `${d.replace(/_/g, ' ')} ${f.value(d, row[d])}`).join(', ');
  const currency = row.currency ?? null;
  if (row.status === 'only_in_a') return `${where}: only in ${labelA} (${f.amount(row.a, currency)})`;
  if (row.status === 'only_in_b') return `${where}: only in ${labelB} (${f.amount(row.b, currency)})`;
  const higher = row.difference > 0 ? labelA : labelB;
  return `${where}: ${labelA} ${f.amount(row.a, currency)} vs ${labelB} ${f.amount(row.b, currency)}, ${higher} higher by ${f.amount(Math.abs(row.difference), currency)} (${row.status.replace('_', ' ')})`;
}


/**
 * A net over several values (the intercompany elimination): the total, then what it is made of,
 * so a reader sees whether it nets to zero and which side is missing when it does not.
 */
export function netAnswer(total: Json, parts: Json, f: TextFormat): string {
  const listed = (parts.dimensions as string[]).find((d) => d !== 'currency')!;
  const wanted: string[] = Array.isArray(parts.filters?.[listed]) ? parts.filters[listed] : [];
  const measure: Json = total.measures[0];
  const scope = f.filters(total.filters, [listed]);
  const lines: string[] = [];
  if (total.row_count === 0) return `No data in ${total.source}${scope ? ` for ${scope}` : ''}.`;
  for (const row of total.rows as Json[]) {
    const value = row[measure.name] as number;
    const unit = measure.unit?.startsWith('currency in dimension') ? row.currency : measure.unit;
    const nets = Math.abs(value) < 0.005;
    lines.push(`Net ${measure.name} of ${listed.replace(/_/g, ' ')} ${wanted.join(' and ')} in ${total.source}${scope ? ` for ${scope}` : ''}: ${f.amount(value, unit)}${nets ? ' (it nets to zero).' : ' (it does not net to zero).'}`);
  }
  for (const value of wanted) {
    const rows = (parts.rows as Json[]).filter((row) => row[listed] === value);
    if (rows.length === 0) lines.push(`- ${listed.replace(/_/g, ' ')} ${value}: no rows (nothing booked)`);
    for (const row of rows) {
      const unit = measure.unit?.startsWith('currency in dimension') ? row.currency : measure.unit;
      lines.push(`- ${listed.replace(/_/g, ' ')} ${value}: ${f.amount(row[measure.name], unit)}`);
    }
  }
  return lines.join('\n');
}

/** Both sides of a comparison by the dimensions the question split it by, matching rows included. */
export function splitAnswer(comparison: Json, a: Json, b: Json, split: string[], f: TextFormat): string {
  const [labelA, labelB] = sideLabels(comparison);
  const key = (row: Json) => [...split, 'currency'].map((d) => String(row[d] ?? '')).join('|');
  const measure = (a.measures as Json[])[0]!.name as string;
  const rowsB = new Map((b.rows as Json[]).map((row) => [key(row), row]));
  const lines = [`By ${split.map((d) => d.replace(/_/g, ' ')).join(' and ')}:`];
  for (const row of (a.rows as Json[]).slice(0, MAX_LISTED_ROWS)) {
    const other = rowsB.get(key(row));
    const unit = row.currency ?? (a.measures as Json[])[0]!.unit;
    const where = split.map((d) => f.value(d, row[d])).join(', ');
    lines.push(`- ${where}: ${labelA} ${f.amount(row[measure], unit)} vs ${labelB} ${other ? f.amount(other[measure], unit) : 'no rows'}`);
  }
  return lines.join('\n');
}
