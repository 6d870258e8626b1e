/**
 * What the data_analyst question forms share about a question's scope: whether it belongs to
 * another skill's checks, and how "in EUR" reads on a source with a group-currency measure.
 */
import type { Catalog, FilterValue, Source, Understanding } from '../../src/skills/api.ts';

const dataQualityIntents = ['duplicates', 'blanks', 'outliers'];
/** A question about meaning (no period or company to read figures for) goes to the knowledge search. */
const aboutMeaning = (q: Understanding) => q.intents.has('meaning') && q.filters.period === undefined && q.filters.company === undefined;
/**
 * A question for another skill: a data-quality check or the knowledge search. `except` names
 * checks a form reads otherwise ("BPC looks out of line with the mart": two sources compared).
 */
export const otherKind = (q: Understanding, except: string[] = []) => dataQualityIntents.some((intent) => q.intents.has(intent) && !except.includes(intent)) || aboutMeaning(q);

/**
 * "In EUR" on a source with a group-currency measure means that measure, not the rows whose
 * local currency is EUR (company 2000's December result translated to EUR is not "no data").
 *
 * @example
 * currencyMeasure(mart, { currency: 'EUR', company: '2000' }, undefined) // { measure: 'amount_gc', filters: { company: '2000' } }
 */
export function currencyMeasure(source: Source, filters: Record<string, FilterValue>, named: string | undefined): { measure: string; filters: Record<string, FilterValue> } | undefined {
  const currency = filters.currency;
  if (typeof currency !== 'string') return undefined;
  const fixed = [...source.measures.values()].find((m) => m.currency === currency);
  if (!fixed || (named && source.measures.get(named)?.currencyDimension === undefined && named !== fixed.name)) return undefined;
  const { currency: _currency, ...rest } = filters;
  return { measure: fixed.name, filters: rest };
}

/**
 * A source with a measure in one fixed currency (the group currency).
 *
 * @example
 * hasGroupCurrency(catalog.sources.get('consolidation_mart')!) // true: amount_gc is in EUR
 */
export function hasGroupCurrency(source: Source): boolean {
  return [...source.measures.values()].some((m) => m.currency !== undefined);
}

/**
 * The reply when a source lacks the measure asked for: what it has, and which sources hold that
 * measure, so the question can be asked again where it can be answered.
 *
 * @example
 * missingMeasure(catalog, mart, 'quantity') // 'consolidation_mart has no measure quantity; it has amount, …. quantity is in fi_reporting and fi_acquisition.'
 */
export function missingMeasure(catalog: Catalog, source: Source, measure: string): string {
  const holders = [...catalog.sources.values()].filter((s) => s.measures.has(measure)).map((s) => s.name);
  const where = holders.length ? ` ${measure} is in ${holders.length === 1 ? holders[0] : `${holders.slice(0, -1).join(', ')} and ${holders.at(-1)}`}.` : '';
  return `${source.name} has no measure ${measure}; it has ${[...source.measures.keys()].join(', ')}.${where}`;
}

/**
 * A measure the catalog calls cumulative ("year to date", "cumulative" among its names): a
 * balance at a period, which summed over periods counts months several times.
 *
 * @example
 * isCumulative(mart, 'amount_ytd') // true
 */
export function isCumulative(source: Source, measure: string | undefined): boolean {
  const names = measure ? (source.measures.get(measure)?.synonyms ?? []).map((name) => name.toLowerCase()) : [];
  return names.some((name) => name === 'year to date' || name === 'ytd' || name.startsWith('cumulative'));
}
