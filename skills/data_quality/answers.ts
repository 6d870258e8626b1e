/**
 * Words the data_quality skill's answers from its tool results: duplicated records, blank
 * values and unusual periods, with the records to correct. Every figure comes from a result.
 */
import { countText, listOf, roundAmount, type TextFormat } from '../../src/skills/api.ts';
import { times } from './scope.ts';

type Json = Record<string, any>;

const MAX_LISTED_ROWS = 15;

// ---------------------------------------------------------------------------------------------
// Data quality (the data_quality skill)


/** "December 2024 for company 1000": the period first, then the other dimensions. */
function placeText(values: Json, names: string[], f: TextFormat): string {
  const period = names.find((name) => name === 'period' && typeof values[name] === 'string');
  const others = names.filter((name) => name !== period && values[name] !== undefined);
  const rest = others.map((name) => `${name.replace(/_/g, ' ')} ${f.value(name, values[name])}`).join(', ');
  if (period) return `${f.month(values[period])}${rest ? ` for ${rest}` : ''}`;
  return rest ? `for ${rest}` : '';
}

/** "document 0100000360 line 1", or "company 1000, group account G4000000". */
function recordText(key: Json, f: TextFormat): string {
  if ('document' in key && 'document_line' in key) return `document ${key.document} line ${key.document_line}`;
  return Object.entries(key)
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${value === null || value === undefined ? '(blank)' : f.value(name, value)}`)
    .join(', ');
}

/**
 * The scope's total with every duplicated record counted once: the total as loaded (a
 * query_source result over the same filters) less the extra copies, per currency.
 *
 * @example
 * countedOnceAnswer(duplicates, totals, textFormat())
 * // 'Counted once, the total of gl_plan for company IN01, … is 144,190,000.00 INR: 125,760,000.00 INR as loaded, less -18,430,000.00 INR counted twice.'
 */
export function countedOnceAnswer(duplicates: Json, totals: Json, f: TextFormat, currencyDimension = 'currency'): string {
  const measure: string = duplicates.measure.name;
  const scope = f.filters(duplicates.filters);
  const extra = new Map<string | null, number>((duplicates.totals as Json[]).map((t) => [t.currency ?? null, t.duplicated_amount ?? 0]));
  const parts = (totals.rows as Json[]).map((row) => {
    // Rows carry the currency under the measure's currency dimension, whatever it is named.
    const currency = row[currencyDimension] ?? null;
    const copies = extra.get(currency) ?? 0;
    return `${f.amount(roundAmount(row[measure] - copies), currency)}: ${f.amount(row[measure], currency)} as loaded, less ${f.amount(copies, currency)} counted more than once`;
  });
  return `Counted once, the ${measure} of ${duplicates.source}${scope ? ` for ${scope}` : ''} is ${parts.join('; ')}.`;
}

/** The duplicates found (and, when none were, what the period comparison shows). */
export function duplicatesAnswer(result: Json, f: TextFormat, outliers?: Json): string {
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
  const place = placeText(top, contextNames, f);
  const documents: string[] = top.documents ?? [];
  const details = [
    documents.length ? `${top.document_count === 1 ? 'document' : 'documents'} ${listOf(documents.slice(0, 8))}${top.document_count > 8 ? ` and ${top.document_count - 8} more` : ''}` : '',
    ...ignored.filter((name) => (top[name] ?? []).length > 1).map((name) => `${name.replace(/_/g, ' ')}s ${listOf(top[name])}`),
  ].filter(Boolean);
  const oneCopy = top.amount / top.copies;
  const lines = [
    `${place ? `In ${result.source}, ${place}` : result.source} contains ${countText(top.groups, noun)} loaded ${times(top.copies)}${details.length ? ` (${details.join('; ')})` : ''}: ${f.amount(oneCopy, currency)} counted ${times(top.copies)}${top.copies > 2 ? ` (${f.amount(top.duplicated_amount, currency)} too much)` : ''}.`,
  ];
  if (top.scope) {
    const subject = place ? `${place.replace(/^for /, 'For ')} totals` : 'The total is';
    lines.push(`${subject} ${f.amount(top.scope.amount, currency)} in ${result.source} (${countText(top.scope.records, noun)}); without the extra copies it would be ${f.amount(top.scope.without_copies, currency)}.`);
  }
  const onlyCopies = (top.breakdown?.values ?? []).filter((v: Json) => v.holds_only_copies);
  if (onlyCopies.length === 1) {
    const value = onlyCopies[0];
    const others = (top.breakdown.values as Json[]).filter((v) => v !== value).map((v) => v.value);
    lines.push(
      `${top.breakdown.dimension.replace(/_/g, ' ').replace(/^./, (c: string) => c.toUpperCase())} ${value.value} holds nothing but these ${countText(value.records, noun)} (${f.amount(value.amount, currency)})${others.length ? `, already loaded with ${listOf(others)}` : ''}: deleting it from ${result.source} removes the duplication.`,
    );
  }
  const groups: Json[] = result.groups;
  if (groups.length) {
    lines.push(`The ${noun}s counted more than once${result.truncated ? ` (the ${groups.length} largest of ${result.duplicate_groups})` : ''}:`);
    for (const group of groups.slice(0, MAX_LISTED_ROWS)) {
      const key = Object.fromEntries(keyNames.map((name) => [name, group[name]]));
      const groupCurrency = currencyName ? group[currencyName] : null;
      lines.push(`- ${recordText(key, f)}: ${f.amount(group.amount / group.copies, groupCurrency)}, ${times(group.copies)}${ignored.map((name) => ((group[name] ?? []).length > 1 ? ` (${listOf(group[name])})` : '')).join('')}`);
    }
    if (groups.length > MAX_LISTED_ROWS) lines.push(`(${groups.length - MAX_LISTED_ROWS} more in the tool result.)`);
  }
  if (patterns.length > 1) {
    const totals = (result.totals as Json[]).map((t) => f.amount(t.duplicated_amount, t.currency ?? null)).join(', ');
    lines.push(`Duplicates also sit elsewhere: ${countText(result.duplicate_groups, noun)} in all, ${totals} counted more than once. ${result.finding}`);
  }
  return lines.join('\n');
}

/** Blank values per dimension, with where they sit and the records to correct. */
export function blanksAnswer(result: Json, f: TextFormat): string {
  const dimensions: Json[] = result.dimensions;
  const defects = dimensions.filter((d) => !d.blank_allowed);
  const allowed = dimensions.filter((d) => d.blank_allowed);
  const scope = f.filters(result.filters);
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
    const amounts = (d.amounts as Json[]).filter((a) => typeof a.amount === 'number').map((a) => f.amount(a.amount, a.currency ?? null));
    const first: Json | undefined = d.where[0];
    const pinned = (name: string) => typeof result.filters?.[name] === 'string';
    const placeNames = first ? Object.keys(first).filter((name) => !['rows', 'amount', 'currency'].includes(name) && !pinned(name)) : [];
    const placed = first && d.where_groups === 1 ? placeText(first, placeNames, f).replace(/^for /, '') : '';
    const place = placed ? `, all in ${placed}` : d.where_groups > 1 ? `, in ${d.where_groups} places` : '';
    lines.push(`In ${where}, ${countText(d.blank_rows, noun)} ${d.blank_rows === 1 ? 'has' : 'have'} a blank ${d.dimension.replace(/_/g, ' ')} (${kinds.join(', ')})${amounts.length ? `, ${amounts.join(', ')} together` : ''}${place}:`);
    for (const example of d.examples as Json[]) {
      const value = example[d.dimension];
      const key = 'document' in example && 'document_line' in example
        ? { document: example.document, document_line: example.document_line }
        : Object.fromEntries(Object.entries(example).filter(([name]) => !['amount', 'currency', d.dimension].includes(name)));
      const amount = typeof example.amount === 'number' ? `${f.amount(example.amount, example.currency ?? null)} ` : '';
      lines.push(`- ${recordText(key, f)}: ${amount}(${value === null ? 'NULL' : value === '' ? 'empty' : `'${value}'`})`);
    }
    if (d.blank_rows > d.examples.length) lines.push(`(${d.blank_rows - d.examples.length} more ${noun}s in the data.)`);
  }
  if (allowed.length) lines.push(`Blank by design (the catalog allows it): ${listOf(allowed.map((d) => `${d.dimension.replace(/_/g, ' ')} on ${countText(d.blank_rows, noun)}`))}.`);
  if (defects.length && allowed.length === 0 && (result.clean_dimensions ?? []).length) lines.push(`Every other dimension checked is filled.`);
  return lines.join('\n');
}

/** The periods that stand out, and the duplicates found in the top one when its load requests suggest them. */
export function outliersAnswer(result: Json, f: TextFormat, duplicates?: Json): string {
  const lines = [result.finding];
  const outliers: Json[] = result.outliers;
  const seriesNames = (result.by as string[]).filter((name) => name !== 'currency');
  if (outliers.length > 1) {
    lines.push('Flagged periods, largest score first:');
    for (const o of outliers.slice(0, 5)) {
      const unit = o.currency ?? (String(result.measure.unit).startsWith('currency') ? null : result.measure.unit);
      const series = seriesNames.map((name) => `${name.replace(/_/g, ' ')} ${o[name] ?? '(blank)'}`).join(', ');
      lines.push(`- ${f.value('period', o.period)}${series ? `, ${series}` : ''}: ${f.amount(o.value, unit)} vs median ${f.amount(o.median, unit)} (expected ${f.amount(o.expected_range.low)} to ${f.amount(o.expected_range.high, unit)}), score ${o.score}`);
    }
  }
  if (duplicates && !duplicates.error) lines.push(duplicates.duplicate_groups ? `Duplicates: ${duplicatesAnswer(duplicates, f)}` : duplicates.finding);
  return lines.join('\n');
}

