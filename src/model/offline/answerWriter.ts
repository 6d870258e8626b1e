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
    '- check data quality: "Why is December doubled in fi_reporting?", "Are there duplicate records in fi_reporting for company 1000?", "Which lines have a blank profit center?", "Find unusual periods in fi_reporting for company 1000"',
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

// ---------------------------------------------------------------------------------------------
// Data quality (the data_quality skill)

const times = (count: number) => (count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`);
const countText = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${count === 1 ? noun : `${noun}s`}`;

function listOf(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "December 2024 for company 1000": the period first, then the other dimensions. */
function placeText(values: Json, names: string[]): string {
  const period = names.find((name) => name === 'period' && typeof values[name] === 'string');
  const others = names.filter((name) => name !== period && values[name] !== undefined);
  const rest = others.map((name) => `${name.replace(/_/g, ' ')} ${describeValue(name, values[name])}`).join(', ');
  if (period) return `${describePeriod(values[period])}${rest ? ` for ${rest}` : ''}`;
  return rest ? `for ${rest}` : '';
}

/** "document 0100000360 line 1", or "company 1000, group account G4000000". */
function recordText(key: Json): string {
  if ('document' in key && 'document_line' in key) return `document ${key.document} line ${key.document_line}`;
  return Object.entries(key)
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${value ?? '(blank)'}`)
    .join(', ');
}

/** The duplicates found (and, when none were, what the period comparison shows). */
export function duplicatesAnswer(result: Json, outliers?: Json): string {
  if (!result.duplicate_groups) {
    const lines = [result.finding];
    if (outliers?.finding) lines.push(outliers.finding);
    return lines.join('\n');
  }
  const keyNames: string[] = result.key;
  const ignored: string[] = result.ignore;
  const noun = keyNames.includes('document') && keyNames.includes('document_line') ? 'document line' : keyNames.length === 1 && keyNames[0] === 'document' ? 'document' : 'record';
  const currencyName = result.totals[0] && 'currency' in result.totals[0] ? 'currency' : undefined;
  const patterns: Json[] = result.patterns;
  const top = patterns[0]!;
  const contextNames = Object.keys(top).filter((name) => !['copies', 'groups', 'records', 'amount', 'duplicated_amount', 'documents', 'document_count', 'keys', 'more_keys', 'differs_in', 'scope', 'breakdown', ...ignored].includes(name) && name !== currencyName);
  const currency = currencyName ? top[currencyName] : null;
  const place = placeText(top, contextNames);
  const documents: string[] = top.documents ?? [];
  const details = [
    documents.length ? `${top.document_count === 1 ? 'document' : 'documents'} ${listOf(documents.slice(0, 8))}${top.document_count > 8 ? ` and ${top.document_count - 8} more` : ''}` : '',
    ...ignored.filter((name) => (top[name] ?? []).length > 1).map((name) => `${name.replace(/_/g, ' ')}s ${listOf(top[name])}`),
  ].filter(Boolean);
  const oneCopy = top.amount / top.copies;
  const lines = [
    `${place ? `In ${result.source}, ${place}` : result.source} contains ${countText(top.groups, noun)} loaded ${times(top.copies)}${details.length ? ` (${details.join('; ')})` : ''}: ${formatAmount(oneCopy, currency)} counted ${times(top.copies)}${top.copies > 2 ? ` (${formatAmount(top.duplicated_amount, currency)} too much)` : ''}.`,
  ];
  if (top.scope) {
    const subject = place ? `${place.replace(/^for /, 'For ')} totals` : 'The total is';
    lines.push(`${subject} ${formatAmount(top.scope.amount, currency)} in ${result.source} (${countText(top.scope.records, noun)}); without the extra copies it would be ${formatAmount(top.scope.without_copies, currency)}.`);
  }
  const onlyCopies = (top.breakdown?.values ?? []).filter((v: Json) => v.holds_only_copies);
  if (onlyCopies.length === 1) {
    const value = onlyCopies[0];
    const others = (top.breakdown.values as Json[]).filter((v) => v !== value).map((v) => v.value);
    lines.push(
      `${top.breakdown.dimension.replace(/_/g, ' ').replace(/^./, (c: string) => c.toUpperCase())} ${value.value} holds nothing but these ${countText(value.records, noun)} (${formatAmount(value.amount, currency)})${others.length ? `, already loaded with ${listOf(others)}` : ''}: deleting it from ${result.source} removes the duplication.`,
    );
  }
  const groups: Json[] = result.groups;
  if (groups.length) {
    lines.push(`The ${noun}s counted more than once${result.truncated ? ` (the ${groups.length} largest of ${result.duplicate_groups})` : ''}:`);
    for (const group of groups.slice(0, MAX_LISTED_ROWS)) {
      const key = Object.fromEntries(keyNames.map((name) => [name, group[name]]));
      const groupCurrency = currencyName ? group[currencyName] : null;
      lines.push(`- ${recordText(key)}: ${formatAmount(group.amount / group.copies, groupCurrency)}, ${times(group.copies)}${ignored.map((name) => ((group[name] ?? []).length > 1 ? ` (${listOf(group[name])})` : '')).join('')}`);
    }
    if (groups.length > MAX_LISTED_ROWS) lines.push(`(${groups.length - MAX_LISTED_ROWS} more in the tool result.)`);
  }
  if (patterns.length > 1) {
    const totals = (result.totals as Json[]).map((t) => formatAmount(t.duplicated_amount, t.currency ?? null)).join(', ');
    lines.push(`Duplicates also sit elsewhere: ${countText(result.duplicate_groups, noun)} in all, ${totals} counted more than once. ${result.finding}`);
  }
  return lines.join('\n');
}

/** Blank values per dimension, with where they sit and the records to correct. */
export function blanksAnswer(result: Json): string {
  const dimensions: Json[] = result.dimensions;
  const defects = dimensions.filter((d) => !d.blank_allowed);
  const allowed = dimensions.filter((d) => d.blank_allowed);
  const scope = describeFilters(result.filters);
  const where = `${result.source}${scope ? ` for ${scope}` : ''}`;
  const noun = dimensions.some((d) => d.examples?.some((e: Json) => 'document_line' in e)) || result.dimensions_checked.includes('document_line') ? 'line' : 'row';
  const checked: string[] = result.dimensions_checked;
  const lines: string[] = [];
  if (defects.length === 0) {
    const what = checked.length <= 3 ? `blank ${listOf(checked.map((d) => d.replace(/_/g, ' ')))}` : 'blank values';
    lines.push(`No ${what} in ${where} (${countText(result.rows_checked, noun)} checked).`);
  }
  for (const d of defects) {
    const kinds = [d.null_rows ? `${d.null_rows} NULL` : '', d.empty_rows ? `${d.empty_rows} empty` : '', d.placeholder_rows ? `${d.placeholder_rows} '#'` : ''].filter(Boolean);
    if (kinds.length === 1) kinds[0] = d.null_rows ? 'NULL' : d.empty_rows ? "empty string ''" : "'#', not assigned";
    const amounts = (d.amounts as Json[]).filter((a) => typeof a.amount === 'number').map((a) => formatAmount(a.amount, a.currency ?? null));
    const first: Json | undefined = d.where[0];
    const pinned = (name: string) => typeof result.filters?.[name] === 'string';
    const placeNames = first ? Object.keys(first).filter((name) => !['rows', 'amount', 'currency'].includes(name) && !pinned(name)) : [];
    const placed = first && d.where_groups === 1 ? placeText(first, placeNames).replace(/^for /, '') : '';
    const place = placed ? `, all in ${placed}` : d.where_groups > 1 ? `, in ${d.where_groups} places` : '';
    lines.push(`In ${where}, ${countText(d.blank_rows, noun)} ${d.blank_rows === 1 ? 'has' : 'have'} a blank ${d.dimension.replace(/_/g, ' ')} (${kinds.join(', ')})${amounts.length ? `, ${amounts.join(', ')} together` : ''}${place}:`);
    for (const example of d.examples as Json[]) {
      const value = example[d.dimension];
      const key = 'document' in example && 'document_line' in example
        ? { document: example.document, document_line: example.document_line }
        : Object.fromEntries(Object.entries(example).filter(([name]) => !['amount', 'currency', d.dimension].includes(name)));
      const amount = typeof example.amount === 'number' ? `${formatAmount(example.amount, example.currency ?? null)} ` : '';
      lines.push(`- ${recordText(key)}: ${amount}(${value === null ? 'NULL' : value === '' ? 'empty' : `'${value}'`})`);
    }
    if (d.blank_rows > d.examples.length) lines.push(`(${d.blank_rows - d.examples.length} more ${noun}s in the data.)`);
  }
  if (allowed.length) lines.push(`Blank by design (the catalog allows it): ${listOf(allowed.map((d) => `${d.dimension.replace(/_/g, ' ')} on ${countText(d.blank_rows, noun)}`))}.`);
  if (defects.length && allowed.length === 0 && (result.clean_dimensions ?? []).length) lines.push(`Every other dimension checked is filled.`);
  return lines.join('\n');
}

/** The periods that stand out, and the duplicates found in the top one when its load requests suggest them. */
export function outliersAnswer(result: Json, duplicates?: Json): string {
  const lines = [result.finding];
  const outliers: Json[] = result.outliers;
  const seriesNames = (result.by as string[]).filter((name) => name !== 'currency');
  if (outliers.length > 1) {
    lines.push('Flagged periods, largest score first:');
    for (const o of outliers.slice(0, 5)) {
      const unit = o.currency ?? (String(result.measure.unit).startsWith('currency') ? null : result.measure.unit);
      const series = seriesNames.map((name) => `${name.replace(/_/g, ' ')} ${o[name] ?? '(blank)'}`).join(', ');
      lines.push(`- ${describeValue('period', o.period)}${series ? `, ${series}` : ''}: ${formatAmount(o.value, unit)} vs median ${formatAmount(o.median, unit)} (expected ${formatAmount(o.expected_range.low)} to ${formatAmount(o.expected_range.high, unit)}), score ${o.score}`);
    }
  }
  if (duplicates && !duplicates.error) lines.push(duplicates.duplicate_groups ? `Duplicates: ${duplicatesAnswer(duplicates)}` : duplicates.finding);
  return lines.join('\n');
}
