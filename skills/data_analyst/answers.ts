/**
 * Words the data_analyst skill's answers from its tool results: the sources, totals and
 * breakdowns, and comparisons with their explanation. Every figure comes from a result.
 */
import { sideLabels, type TextFormat } from '../../src/skills/api.ts';

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
  const gaps = groupDimensions.length === 1 && groupDimensions[0] === 'period' ? monthsWithoutRows(result.rows.map((row: Json) => String(row.period)), result.filters?.period) : [];
  // A month with no rows is not left out silently: "month by month" must show the gap.
  if (gaps.length) lines.push(`No rows in ${gaps.map((period) => f.month(period)).join(', ')}.`);
  return lines.join('\n');
}

/** Months (periods 001–012) between the first and last asked for, or present, that have no row. */
function monthsWithoutRows(periods: string[], filter: unknown): string[] {
  const months = periods.filter((p) => /^\d{7}$/.test(p) && Number(p.slice(4)) >= 1 && Number(p.slice(4)) <= 12).sort();
  if (months.length === 0) return [];
  const range = filter && typeof filter === 'object' && !Array.isArray(filter) ? (filter as { from?: string; to?: string }) : {};
  const first = [range.from, months[0]!].filter((p): p is string => typeof p === 'string' && /^\d{7}$/.test(p)).sort()[0]!;
  const last = [range.to, months.at(-1)!].filter((p): p is string => typeof p === 'string' && /^\d{7}$/.test(p)).sort().at(-1)!;
  const present = new Set(months);
  const missing: string[] = [];
  for (let year = Number(first.slice(0, 4)); year <= Number(last.slice(0, 4)); year += 1) {
    for (let month = 1; month <= 12; month += 1) {
      const period = `${year}${String(month).padStart(3, '0')}`;
      if (period >= first && period <= last && !present.has(period)) missing.push(period);
    }
  }
  return missing;
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
  // Two accounts of opposite sign (intercompany revenue against purchases) tie out when they offset:
  // their net says it. Not for versions or periods, where a sign change is the news, not an offset.
  const compared = sameSource ? Object.keys({ ...result.filters_a, ...result.filters_b }).filter((name) => JSON.stringify(result.filters_a?.[name]) !== JSON.stringify(result.filters_b?.[name])) : [];
  if (compared.length && !compared.some((name) => name === 'version' || name === 'period')) {
    for (const total of summary.totals) {
      if (Math.sign(total.total_a) * Math.sign(total.total_b) < 0) lines.push(`The two sides have opposite signs: together they net to ${f.amount(total.total_a + total.total_b, total.currency ?? null)}.`);
    }
  }
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

/**
 * A net per value of a breakdown ("does the elimination net to zero in every month?"): the
 * values where it is off, by how much, and that every other value nets to zero.
 *
 * @example
 * netPerValueAnswer(result, f) // 'No: only September 2024 is off, by 152,500.00 EUR; every other month nets to 0.00 EUR. …'
 */
export function netPerValueAnswer(result: Json, f: TextFormat): string {
  const measure: Json = result.measures[0];
  const split = (result.dimensions as string[]).filter((d) => d !== 'currency');
  const scope = f.filters(result.filters);
  if (result.row_count === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  const rows = result.rows as Json[];
  const unit = (row: Json) => (String(measure.unit).startsWith('currency in dimension') ? (row.currency ?? null) : measure.unit);
  const name = (row: Json) => split.map((d) => (d === 'period' && /^\d{7}$/.test(String(row[d])) ? f.month(row[d]) : `${d.replace(/_/g, ' ')} ${f.value(d, row[d])}`)).join(', ');
  const noun = split.length === 1 && split[0] === 'period' ? ['month', 'months'] : ['value', 'values'];
  const off = rows.filter((row) => Math.abs(Number(row[measure.name] ?? 0)) >= 0.005);
  const zero = f.amount(0, unit(rows[0]!));
  const lines: string[] = [];
  if (off.length === 0) lines.push(`Yes: it nets to ${zero} in every ${noun[0]} (${rows.length} ${rows.length === 1 ? noun[0] : noun[1]} with rows).`);
  else if (off.length === rows.length) lines.push(`No: it nets to zero in no ${noun[0]}:`, ...off.map((row) => `- ${name(row)}: ${f.amount(row[measure.name], unit(row))}`));
  else {
    const offText = off.map((row) => `${name(row)}${off.length === 1 ? ' is off, by ' : ' by '}${f.amount(row[measure.name], unit(row))}`).join('; ');
    lines.push(`No: ${off.length === 1 ? `only ${offText}` : `${off.length} ${noun[1]} are off: ${offText}`}; every other ${noun[0]} nets to ${zero}.`);
  }
  lines.push(`(Net ${measure.name} in ${result.source}${scope ? ` for ${scope}` : ''}, per ${split.map((d) => (d === 'period' ? 'month' : d.replace(/_/g, ' '))).join(' and ')}: ${rows.length} ${rows.length === 1 ? noun[0] : noun[1]} with rows.)`);
  return lines.join('\n');
}

/**
 * The size of a comparison's gap, first, for "how big / how far apart / by how much" questions.
 *
 * @example
 * differenceLead(result, f) // 'fi_reporting is higher than bpc_reporting by 110,000.00 EUR.'
 */
export function differenceLead(result: Json, f: TextFormat): string {
  const [labelA, labelB] = sideLabels(result);
  return (result.summary.totals as Json[])
    .map((total) => {
      const unit = total.currency ?? null;
      if (Math.abs(total.difference) < 0.005) return `${labelA} and ${labelB} are equal: ${f.amount(total.total_a, unit)}.`;
      const [higher, lower] = total.difference > 0 ? [labelA, labelB] : [labelB, labelA];
      return `${higher} is higher than ${lower} by ${f.amount(Math.abs(total.difference), unit)}.`;
    })
    .join('\n');
}

/**
 * A monthly average: the total of the months asked for (the filtered range, else the whole
 * years the rows fall in), divided by their number, per currency; months with no rows count.
 *
 * @example
 * monthlyAverageAnswer(result, 'period', f) // 'Average amount per month in … over 12 months (January 2024–December 2024): 902,650.00 GBP (total 10,831,800.00 GBP).'
 */
export function monthlyAverageAnswer(result: Json, period: string, f: TextFormat): string {
  const measure: Json = result.measures[0];
  const scope = f.filters(result.filters, [period]);
  const rows = (result.rows as Json[]).filter((row) => /^\d{7}$/.test(String(row[period])) && Number(String(row[period]).slice(4)) <= 12);
  if (rows.length === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  const months = rows.map((row) => String(row[period])).sort();
  const range = result.filters?.[period];
  const from = typeof range?.from === 'string' ? range.from : `${months[0]!.slice(0, 4)}001`;
  const to = typeof range?.to === 'string' ? range.to : `${months.at(-1)!.slice(0, 4)}012`;
  const count = (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 + Number(to.slice(4)) - Number(from.slice(4)) + 1;
  const totals = new Map<string | null, number>();
  for (const row of rows) totals.set(row.currency ?? null, (totals.get(row.currency ?? null) ?? 0) + Number(row[measure.name] ?? 0));
  const unit = (currency: string | null) => currency ?? (String(measure.unit).startsWith('currency') ? null : measure.unit);
  const head = `Average ${measure.name} per month in ${result.source}${scope ? ` for ${scope}` : ''} over ${count} month${count === 1 ? '' : 's'} (${f.span({ from, to })})`;
  const value = (currency: string | null, total: number) => `${f.amount(Math.round((total / count) * 100) / 100, unit(currency))} (total ${f.amount(total, unit(currency))})`;
  const [only, ...others] = [...totals];
  if (only && others.length === 0) return `${head}: ${value(only[0], only[1])}.`;
  return [`${head}, per currency (amounts in different currencies are not added):`, ...[...totals].map(([currency, total]) => `- ${currency}: ${value(currency, total)}`)].join('\n');
}
