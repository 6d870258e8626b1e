/**
 * Ranking questions the offline model answers with query_source: "which month was highest",
 * "top 3 accounts", "the lowest company". The dimension ranked is the one the question names
 * without a value; its values are read grouped, then ranked here. Amounts in several
 * currencies are never ranked against each other: the question is asked back.
 */
import { defineQuestionForm, failedStep, periodDimension, rankingOf, scopeOn, shapeIntents, sourceFor, textFormat, type Catalog, type CompletedCall, type PlanStep, type Ranking, type Source, type Understanding } from '../../src/skills/api.ts';
import { rankAnswer } from './rankAnswers.ts';
import { currencyMeasure, hasGroupCurrency, isCumulative, missingMeasure, otherKind } from './formScope.ts';
import { MAX_QUERY_ROWS } from './limits.ts';

/** Kinds of question that rank by their own rules: the largest differences, movers, outliers. */
const rankedElsewhere = ['compare', 'variance', 'movement', 'quarter_over_quarter', 'month_over_month', 'why'];

export const rankForm = defineQuestionForm({
  name: 'rank',
  // The shapes every form reads (split, every, which, rankings, magnitudes) are declared once, here.
  intents: shapeIntents,
  examples: ['Which month had the highest revenue for Contoso Deutschland?', 'Top 3 accounts by amount for company 2000 in December 2024'],
  score: (q) => (rankingOf(q) && q.sources.length < 2 && !otherKind(q) && !rankedElsewhere.some((intent) => q.intents.has(intent)) ? 8 : 0),
  plan: (q, done, context) => {
    let ranking = rankingOf(q)!;
    const { catalog } = context;
    // A measure named without a source ("in group currency") picks a source that has it.
    const hasMeasure = (source: Source) => !q.measure || source.measures.has(q.measure);
    if (ranking.grain === 'quarter') {
      const source = sourceFor(q, catalog, [], (candidate) => hasMeasure(candidate) && periodDimension(candidate) !== undefined);
      const period = source ? periodDimension(catalog.sources.get(source)!) : undefined;
      if (period) ranking = { ...ranking, dimension: period.name };
    }
    if (ranking.grain === 'quarter' && q.measure && [...catalog.sources.values()].some((s) => isCumulative(s, q.measure))) return { clarify: `${q.measure} is a balance to date, which I won't sum into quarters; ask which month was highest, or for the period amount by quarter.` };
    if (!ranking.dimension) return { clarify: `What should I rank to find the ${ranking.end === 'both' ? 'highest and lowest' : ranking.end}? Name it, e.g. "which month …", "which company …" or "top 3 accounts …".` };
    const grouped = { ...q, groupBy: [ranking.dimension] };
    const named = sourceFor(grouped, catalog, [], hasMeasure) ?? sourceFor(grouped, catalog);
    if (!named) return { clarify: `No single source has ${[...Object.keys(q.filters), ranking.dimension].map((d) => d.replace(/_/g, ' ')).join(', ')}. The sources are ${[...catalog.sources.keys()].join(', ')}.` };
    const call = rankCall(q, catalog, catalog.sources.get(named)!, ranking.dimension);
    if ('clarify' in call) return call;
    if (done.length === 0) return { toolCalls: [call] };
    const failure = failedStep(done);
    if (failure) return failure;
    return rankStep(ranking, done, catalog, context.locale);
  },
});

export const questions = [rankForm];

/** query_source grouped by the ranked dimension, in the question's scope; or a question back. */
function rankCall(q: Understanding, catalog: Catalog, source: Source, dimension: string): { name: string; args: Record<string, unknown> } | { clarify: string } {
  const inCurrency = currencyMeasure(source, q.filters, q.measure);
  const filters = inCurrency?.filters ?? q.filters;
  const measure = inCurrency?.measure ?? q.measure ?? source.defaultMeasures[0]!;
  const scope = scopeOn(source, filters);
  if (scope.problem) return { clarify: scope.problem };
  if (!source.measures.has(measure)) return { clarify: missingMeasure(catalog, source, measure) };
  if (!source.dimensions.has(dimension)) return { clarify: `${source.name} cannot be ranked by ${dimension.replace(/_/g, ' ')}; its dimensions are ${[...source.dimensions.keys()].join(', ')}.` };
  const args = { source: source.name, measures: [measure], dimensions: [dimension], ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}), order_by: `${measure} desc`, limit: MAX_QUERY_ROWS };
  return { name: 'query_source', args };
}

/**
 * The ranking, when the values were read in one currency. Values in several currencies are
 * never ranked against each other, nor read in another source or measure the question did not
 * name: it is asked back.
 */
function rankStep(ranking: Ranking, done: readonly CompletedCall[], catalog: Catalog, locale: string): PlanStep {
  const result = done[0]!.result;
  const currencies = new Set((result.rows as Record<string, unknown>[]).map((row) => row.currency).filter((c) => c !== undefined));
  if (currencies.size <= 1) return { answer: rankAnswer(result, ranking, catalog, textFormat(locale, catalog.periodCalendar)) };
  const withGroupCurrency = [...catalog.sources.values()].filter(hasGroupCurrency).map((s) => s.name);
  const dimension = ranking.dimension!.replace(/_/g, ' ');
  return { clarify: `The ${dimension} values in ${result.source} are in different currencies (${[...currencies].join(', ')}), so I won't rank them against each other. Should I rank them for one company or currency${withGroupCurrency.length ? `, or in group currency (${withGroupCurrency.join(' or ')})` : ''}?` };
}
