/**
 * The questions the offline model answers with the movement tools: what drove the change
 * between two periods ("from November to December", "quarter over quarter", "top movers")
 * and a month-over-month trend. The core reads "from November to December" as a span
 * (`filters.period`) and "November vs December" as points (`periods`); both become sides.
 */
import { defineQuestionForm, failedStep, formatPeriod, scopeOn, sourceFor, textFormat, type Catalog, type FilterValue, type Source, type Understanding } from '../../src/skills/api.ts';
import { movementAnswer, trendAnswer } from './answers.ts';

type Side = string | { from: string; to: string };

/** Questions that belong to another skill's checks or to the knowledge search. */
const otherKind = (q: Understanding) => ['duplicates', 'blanks', 'outliers', 'meaning', 'compare', 'variance'].some((intent) => q.intents.has(intent)) || q.sources.length > 1;
const monthOverMonth = (q: Understanding) => q.intents.has('month_over_month');
/** A trend question (month over month) rather than a comparison of two sides. */
const asksTrend = (q: Understanding) => monthOverMonth(q) && !q.intents.has('movement') && !q.intents.has('quarter_over_quarter') && q.periods.length < 2;

export const comparePeriodsForm = defineQuestionForm({
  name: 'compare_periods',
  intents: {
    movement: ['drove the change', 'drove the increase', 'drove the decrease', 'drove the drop', 'drove the rise', 'drove the growth', 'drove the movement', 'what drove', 'movers', 'top movers', 'biggest movers', 'largest movers', 'movement', 'movements', 'moved', 'change', 'changes', 'changed', 'period over period', 'bridge'],
    quarter_over_quarter: ['quarter over quarter', 'quarter on quarter', 'qoq'],
    month_over_month: ['month over month', 'month on month', 'mom'],
  },
  examples: ['What drove the change in revenue from November to December?', 'Top movers by account quarter over quarter for company 2000'],
  score: (q) => (!otherKind(q) && !asksTrend(q) && (q.intents.has('movement') || q.intents.has('quarter_over_quarter') || monthOverMonth(q) || betweenPeriods(q)) ? 9 : 0),
  plan: (q, done, context) => {
    const scope = formScope(q, context.catalog);
    if ('clarify' in scope) return scope;
    const { source, period } = scope;
    const named = sidesOf(q, period, lastYear(source));
    // "How much more in Q2 than in Q1": the change from the earlier period to the later one.
    const sides = named && betweenPeriods(q) && start(named.b) < start(named.a) ? { ...named, a: named.b, b: named.a } : named;
    if (!sides) return { clarify: 'Which two periods should I compare? For example "from November to December" or "Q3 vs Q4 2024".' };
    const groupBy = q.groupBy.filter((d) => d !== 'period');
    const split = groupBy.length ? groupBy : defaultSplit(source, scope.filters);
    const args = {
      source: source.name,
      ...scope.measure,
      period_a: sides.a,
      period_b: sides.b,
      ...(split.length ? { group_by: split } : {}),
      ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}),
    };
    if (done.length === 0) return { toolCalls: [{ name: 'compare_periods', args }] };
    return failedStep(done) ?? { answer: movementAnswer(done[0]!.result, textFormat(context.locale, context.catalog.periodCalendar), sides.assumed) };
  },
});

/** "How much more revenue in Q2 than in Q1?", "by how much does December exceed November?": a difference of periods. */
function betweenPeriods(q: Understanding): boolean {
  const period = q.filters.period;
  return q.intents.has('difference') && (q.periods.length >= 2 || (period !== undefined && typeof period !== 'string'));
}
const start = (side: Side) => (typeof side === 'string' ? side : side.from);

export const periodTrendForm = defineQuestionForm({
  name: 'period_trend',
  examples: ['Month-over-month trend of FI for 3000'],
  score: (q) => (!otherKind(q) && asksTrend(q) ? 9 : 0),
  plan: (q, done, context) => {
    const scope = formScope(q, context.catalog);
    if ('clarify' in scope) return scope;
    const { source, period } = scope;
    const periods = typeof period === 'object' && !Array.isArray(period) ? period : undefined;
    const args = {
      source: source.name,
      ...scope.measure,
      ...(periods ? { periods } : {}),
      ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}),
    };
    if (done.length === 0) return { toolCalls: [{ name: 'period_trend', args }] };
    return failedStep(done) ?? { answer: trendAnswer(done[0]!.result, textFormat(context.locale, context.catalog.periodCalendar)) };
  },
});

/**
 * What both forms read first: the source, the period asked for (the sides come from it), the
 * other filters the source takes, and the measure argument when one was named; or a question back.
 */
function formScope(q: Understanding, catalog: Catalog): { source: Source; period: FilterValue | undefined; filters: Record<string, FilterValue>; measure: { measure?: string } } | { clarify: string } {
  const source = pickSource(q, catalog);
  if ('clarify' in source) return source;
  const { period, ...rest } = q.filters;
  const scope = scopeOn(source, rest);
  if (scope.problem) return { clarify: scope.problem };
  return { source, period, filters: scope.filters, measure: q.measure && source.measures.has(q.measure) ? { measure: q.measure } : {} };
}

export const questions = [comparePeriodsForm, periodTrendForm];

function pickSource(q: Understanding, catalog: Catalog): Source | { clarify: string } {
  const { period: _period, ...rest } = q.filters;
  const name = sourceFor({ ...q, filters: rest }, catalog, ['period']);
  if (!name) return { clarify: `No source has ${[...Object.keys(rest), ...q.groupBy].join(', ').replace(/_/g, ' ')} by period. The sources are ${[...catalog.sources.keys()].join(', ')}.` };
  return catalog.sources.get(name)!;
}

/**
 * The two sides the question names: two points ("November vs December"), a span read from its
 * ends ("from November to December"), one period against the one before, or — with none named —
 * the last two months or quarters of the data's year (said in the answer).
 */
function sidesOf(q: Understanding, period: FilterValue | undefined, year: number): { a: Side; b: Side; assumed?: string } | undefined {
  const quarterly = q.intents.has('quarter_over_quarter');
  const quarters = [...q.text.matchAll(/\bq([1-4])\b/gi)].map((m) => Number(m[1]));
  const halves = [...q.text.matchAll(/\bh([12])\b/gi)].map((m) => Number(m[1]));
  if (q.periods.length >= 2) return { a: q.periods[0]!, b: q.periods[1]! };
  if (Array.isArray(period) && period.length === 2) return { a: period[0]!, b: period[1]! };
  if (period && typeof period === 'object' && !Array.isArray(period)) {
    const endYear = Number(period.to.slice(0, 4));
    if (quarters.length === 2) return { a: quarterOf(Number(period.from.slice(0, 4)), quarters[0]!), b: quarterOf(endYear, quarters[1]!) };
    // "from H1 to H2": the halves, not their first and last months.
    if (halves.length === 2) return { a: halfOf(Number(period.from.slice(0, 4)), halves[0]!), b: halfOf(endYear, halves[1]!) };
    const month = Number(period.to.slice(4));
    if (quarterly) return { a: previousQuarter(endYear, Math.ceil(month / 3)), b: quarterOf(endYear, Math.ceil(month / 3)) };
    return { a: period.from, b: period.to };
  }
  if (typeof period === 'string') {
    const periodYear = Number(period.slice(0, 4));
    const month = Number(period.slice(4));
    if (quarterly) return { a: previousQuarter(periodYear, Math.ceil(month / 3)), b: quarterOf(periodYear, Math.ceil(month / 3)) };
    return { a: month > 1 ? formatPeriod(periodYear, month - 1) : formatPeriod(periodYear - 1, 12), b: period };
  }
  if (period !== undefined) return undefined;
  if (quarterly) return { a: quarterOf(year, 3), b: quarterOf(year, 4), assumed: `no period was named: the last two quarters of ${year}` };
  return { a: formatPeriod(year, 11), b: formatPeriod(year, 12), assumed: `no period was named: the last two months of ${year}` };
}

const quarterOf = (year: number, quarter: number) => ({ from: formatPeriod(year, quarter * 3 - 2), to: formatPeriod(year, quarter * 3) });
const halfOf = (year: number, half: number) => ({ from: formatPeriod(year, half * 6 - 5), to: formatPeriod(year, half * 6) });
const previousQuarter = (year: number, quarter: number) => (quarter > 1 ? quarterOf(year, quarter - 1) : quarterOf(year - 1, 4));

/** The latest year the source's period examples name (the data's year). */
function lastYear(source: Source): number {
  const years = [...source.dimensions.values()].filter((d) => d.type === 'period').flatMap((d) => d.examples.map((e) => Number(e.slice(0, 4))));
  const valid = years.filter(Number.isFinite);
  return valid.length ? Math.max(...valid) : new Date().getFullYear();
}

/** Without "by …": split by the first of company, group account, profit centre not fixed to one value. */
function defaultSplit(source: Source, filters: Record<string, FilterValue>): string[] {
  const candidate = ['company', 'group_account', 'profit_center'].find((d) => source.dimensions.has(d) && typeof filters[d] !== 'string');
  return candidate ? [candidate] : [];
}

