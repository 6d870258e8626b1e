/**
 * Totals that leave values out, answered offline with query_source: "what did company 1000 book
 * in 2024, excluding intercompany", "BPC for the UK in October without the manual adjustment".
 * The data layer's filters take values to keep, not values to leave out, so the total is read
 * grouped by the dimension of the values left out and summed here without them: exact whatever
 * values the data holds, and the answer says both the total and what was left out.
 */
import { defineQuestionForm, failedStep, scopeOn, sourceFor, textFormat, type Catalog, type CompletedCall, type PlanStep, type Source, type TextFormat } from '../../src/skills/api.ts';
import { currencyMeasure, missingMeasure, otherKind } from './formScope.ts';
import { MAX_QUERY_ROWS } from './limits.ts';

type Json = Record<string, any>;

export const excludeForm = defineQuestionForm({
  name: 'exclude',
  readsExclusions: true,
  examples: ['What did company 1000 book in 2024 in the consolidation mart, excluding intercompany?'],
  // A plain total with one dimension's values left out; rankings, comparisons and checks ask back.
  score: (q) => (q.excluded && Object.keys(q.excluded).length === 1 && q.sources.length < 2 && q.groupBy.length === 0 && q.versions.length < 2 && !otherKind(q) && [...q.intents].every((intent) => intent === 'net') ? 9 : 0),
  plan: (q, done, context) => {
    const [dimension, left] = Object.entries(q.excluded!)[0]!;
    const { catalog } = context;
    const hasMeasure = (source: Source) => !q.measure || source.measures.has(q.measure);
    const named = sourceFor({ ...q, groupBy: [dimension] }, catalog, [], hasMeasure) ?? sourceFor({ ...q, groupBy: [dimension] }, catalog);
    if (!named) return { clarify: `No single source has ${[...Object.keys(q.filters), dimension].map((d) => d.replace(/_/g, ' ')).join(', ')}. The sources are ${[...catalog.sources.keys()].join(', ')}.` };
    const source = catalog.sources.get(named)!;
    if (!source.dimensions.has(dimension)) return { clarify: `${source.name} has no ${dimension.replace(/_/g, ' ')}, so I cannot leave out ${left.join(', ')} there.` };
    const inCurrency = currencyMeasure(source, q.filters, q.measure);
    const measure = inCurrency?.measure ?? q.measure ?? source.defaultMeasures[0]!;
    if (!source.measures.has(measure)) return { clarify: missingMeasure(catalog, source, measure) };
    const scope = scopeOn(source, inCurrency?.filters ?? q.filters);
    if (scope.problem) return { clarify: scope.problem };
    if (done.length === 0) {
      const args = { source: source.name, measures: [measure], dimensions: [dimension], ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}), limit: MAX_QUERY_ROWS };
      return { toolCalls: [{ name: 'query_source', args }] };
    }
    return failedStep(done) ?? excludedTotal(done[0]!, dimension, left, catalog, textFormat(context.locale, context.catalog.periodCalendar));
  },
});

export const questions = [excludeForm];

/**
 * The total without the values left out, per currency, with the full total and the part left
 * out beside it. A result cut at the row limit is asked back, never summed.
 *
 * @example
 * // rows G4000000: 1,000; G4100000: 200 (EUR), left out G4100000
 * // → 'amount in consolidation_mart for company 1000, excluding group account G4100000: 1,000.00 EUR (all: 1,200.00 EUR; G4100000: 200.00 EUR).'
 */
function excludedTotal(call: CompletedCall, dimension: string, left: string[], catalog: Catalog, f: TextFormat): PlanStep {
  const result: Json = call.result;
  const rows = result.rows as Json[];
  if (result.truncated || rows.length >= MAX_QUERY_ROWS) return { clarify: `${result.source} has too many ${dimension.replace(/_/g, ' ')} values here to sum them in one answer; narrow the question (a company, a period).` };
  const measure: Json = result.measures[0];
  const totals = new Map<string, { kept: number; out: number; outRows: number }>();
  for (const row of rows) {
    if (typeof row[measure.name] !== 'number') continue;
    const unit = String(measure.unit).startsWith('currency in dimension') ? String(row.currency ?? '') : String(measure.unit ?? '');
    const total = totals.get(unit) ?? { kept: 0, out: 0, outRows: 0 };
    if (left.includes(String(row[dimension]))) [total.out, total.outRows] = [total.out + row[measure.name], total.outRows + 1];
    else total.kept += row[measure.name];
    totals.set(unit, total);
  }
  const labels = left.map((code) => {
    const label = catalog.sources.get(result.source)?.dimensions.get(dimension)?.values.get(code)?.[0];
    return label && label !== code ? `${code} (${label})` : code;
  });
  const scope = f.filters(result.filters);
  const head = `${measure.name} in ${result.source}${scope ? ` for ${scope}` : ''}, excluding ${dimension.replace(/_/g, ' ')} ${labels.join(', ')}`;
  if (totals.size === 0) return { answer: `No data in ${result.source}${scope ? ` for ${scope}` : ''}.` };
  const money = (value: number, unit: string) => f.amount(Math.round(value * 100) / 100, unit || undefined);
  const line = (unit: string, t: { kept: number; out: number; outRows: number }) =>
    `${money(t.kept, unit)} (all ${dimension.replace(/_/g, ' ')} values: ${money(t.kept + t.out, unit)}; ${t.outRows ? `left out: ${money(t.out, unit)}` : `no rows of ${left.join(', ')} here`})`;
  if (totals.size === 1) {
    const [unit, t] = [...totals][0]!;
    return { answer: `${head}: ${line(unit, t)}.` };
  }
  return { answer: [`${head}, per currency (amounts in different currencies are not added):`, ...[...totals].map(([unit, t]) => `- ${unit}: ${line(unit, t)}`)].join('\n') };
}

