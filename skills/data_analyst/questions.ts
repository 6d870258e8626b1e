/**
 * The questions the embedded offline model answers with the data_analyst tools: which
 * sources exist, totals and breakdowns, comparisons of two sources and of two versions of
 * one source (followed by an explanation when they differ). Each form answers exactly what
 * was asked: a constraint a source cannot take is asked back, never dropped.
 */
import { commonMeasure, defineQuestionForm, failedStep, impliedVersionPair, periodDimension, rankingOf, scopeOn, sourceFor, sourcesWith, textFormat, versionPartner, type Catalog, type CompletedCall, type FilterValue, type PlanStep, type Source, type TextFormat, type Understanding } from '../../src/skills/api.ts';
import { comparisonAnswer, differenceLead, monthlyAverageAnswer, netAnswer, netPerValueAnswer, queryAnswer, sourcesAnswer, splitAnswer } from './answers.ts';
import { currencyMeasure, hasGroupCurrency, isCumulative, missingMeasure, otherKind } from './formScope.ts';
import { byQuarter } from './rankAnswers.ts';
import { rankForm } from './rankQuestions.ts';
import { excludeForm } from './excludeQuestions.ts';


export const listSourcesForm = defineQuestionForm({
  name: 'list_sources',
  intents: { list_sources: ['sources', 'data sources', 'which sources', 'what sources', 'tables', 'datasets', 'data sets', 'what data', 'which data', 'available data', 'list sources', 'list the sources'] },
  examples: ['Which sources are available?'],
  score: (q) => (q.intents.has('list_sources') && q.sources.length === 0 && Object.keys(q.filters).length === 0 && !q.measure ? 10 : 0),
  plan: (_q, done) => (done.length === 0 ? { toolCalls: [{ name: 'list_sources', args: {} }] } : failedStep(done) ?? { answer: sourcesAnswer(done[0]!.result) }),
});

export const queryForm = defineQuestionForm({
  name: 'query',
  examples: ['Total amount in fi_reporting for company 1000 in December 2024', 'Revenue of Contoso UK by month in Q4 2024'],
  score: (q) => {
    if (q.sources.length > 1 || otherKind(q) || q.intents.has('compare') || q.intents.has('variance')) return 0;
    // A ranking is the rank form's: a total would answer a broader question ("which month was highest").
    if (rankingOf(q) && !q.intents.has('why')) return 0;
    // "By how much does December exceed November?": a difference, never one side or the sum of both.
    if (q.intents.has('difference')) return 0;
    return q.sources.length === 1 || q.measure !== undefined || Object.keys(q.filters).length > 0 || q.groupBy.length > 0 ? 1 : 0;
  },
  plan: (q, done, context) => {
    const f = textFormat(context.locale, context.catalog.periodCalendar);
    // A net is over the values listed (both intercompany accounts): those are not split.
    if (q.intents.has('net')) q = { ...q, groupBy: q.groupBy.filter((d) => !Array.isArray(q.filters[d])) };
    // "By quarter": read by period, summed into quarters in the answer.
    const quarterly = q.intents.has('quarter_grain') && !q.intents.has('net');
    // A total does not say why: without something to compare with, ask what to hold it against.
    // The examples name no company, so a key scoped to some companies learns of no other.
    if (q.intents.has('why') && !q.intents.has('net')) {
      // "Why is the budget only half of the actual result?": a budget table is held against its actuals.
      const pair = q.sources.length === 1 ? versionPartner(context.catalog, q.sources[0]!) : undefined;
      if (pair) return compareSourcesForm.plan({ ...q, sources: pair }, done, context);
      return { clarify: 'To explain a figure I need something to hold it against: another source ("why does bpc_reporting differ from consolidation_mart in June?"), the budget ("why is it below budget in November?"), or a check ("are there duplicates in fi_reporting in December?"). Which one do you mean?' };
    }
    const net = q.intents.has('net');
    // A net across companies is only meaningful in one currency: prefer a source with a group-currency measure.
    // A measure named without a source ("revenue by company in group currency") picks a source that has it.
    const hasMeasure = (source: Source) => !q.measure || source.measures.has(q.measure);
    const sourceName = net && !q.sources.length && !q.measure ? (sourceFor(q, context.catalog, [], hasGroupCurrency) ?? sourceFor(q, context.catalog)) : (sourceFor(q, context.catalog, [], hasMeasure) ?? sourceFor(q, context.catalog));
    if (!sourceName) return { clarify: noSourceFor(q, context.catalog) };
    const source = context.catalog.sources.get(sourceName)!;
    const inCurrency = currencyMeasure(source, q.filters, q.measure);
    if (inCurrency) q = { ...q, measure: inCurrency.measure, filters: inCurrency.filters };
    const scope = scopeOn(source, q.filters);
    if (scope.problem) return { clarify: `${scope.problem} ${alternatives(q, context.catalog)}` };
    if (q.measure && !source.measures.has(q.measure)) return { clarify: missingMeasure(context.catalog, source, q.measure) };
    // "Average monthly …": read by month, averaged over the months asked for in the answer.
    const average = q.intents.has('average') && !net;
    const period = quarterly || average ? periodDimension(source) : undefined;
    if ((quarterly || average) && !period) return { clarify: `${source.name} has no period to ${average ? 'average over' : 'sum into quarters'}.` };
    if (average && isCumulative(source, q.measure)) return { clarify: `${q.measure} is a balance to date: an average over months of it means nothing. Ask for it at a month (e.g. "at December 2024"), or for the period amount.` };
    if (average && q.groupBy.some((d) => d !== period!.name)) return { clarify: `An average over months of each ${q.groupBy.filter((d) => d !== period!.name).join(' and ').replace(/_/g, ' ')} is more than I can read in one answer: name one value, e.g. one company.` };
    if (period && !q.groupBy.includes(period.name)) q = { ...q, groupBy: [...q.groupBy, period.name] };
    const missingGroup = q.groupBy.find((d) => !source.dimensions.has(d));
    if (missingGroup) return { clarify: `${source.name} cannot be broken down by ${missingGroup.replace(/_/g, ' ')}; its dimensions are ${[...source.dimensions.keys()].join(', ')}.` };
    const fixed = [...source.measures.values()].find((m) => m.currency !== undefined);
    const measure = q.measure ?? (net && fixed ? fixed.name : undefined);
    const args = {
      source: source.name,
      ...(measure ? { measures: [measure] } : {}),
      ...(q.groupBy.length ? { dimensions: q.groupBy } : {}),
      ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}),
    };
    // The net, and what it is made of: the total, then the values of the listed dimension.
    const listed = Object.entries(scope.filters).find(([, value]) => Array.isArray(value))?.[0];
    if (done.length === 0) {
      if (net && listed && !q.groupBy.length) return { toolCalls: [{ name: 'query_source', args }, { name: 'query_source', args: { ...args, dimensions: [listed] } }] };
      return { toolCalls: [{ name: 'query_source', args }] };
    }
    const failure = failedStep(done);
    if (failure) return failure;
    if (done.length === 2) return { answer: netAnswer(done[0]!.result, done[1]!.result, f) };
    if (net && q.groupBy.length) return { answer: netPerValueAnswer(done[0]!.result, f) };
    const result = done[0]!.result;
    if (average) return { answer: monthlyAverageAnswer(result, period!.name, f) };
    // A year-to-date balance by quarter is its value at each quarter's end, never a sum of months.
    if (period && isCumulative(source, measure)) {
      const rows = (result.rows as Record<string, unknown>[]).filter((row) => Number(String(row[period.name]).slice(-2)) % 3 === 0);
      const ends = { ...result.filters, [period.name]: rows.map((row) => row[period.name]) };
      // The months between the quarter ends were left out on purpose: not "no rows".
      const listed = queryAnswer({ ...result, filters: ends, rows, row_count: rows.length, total_rows: rows.length }, f).split('\n').filter((line) => !line.startsWith('No rows in '));
      return { answer: `${listed.join('\n')}\n(${measure} is a balance to date: each quarter is shown at its last month, not summed.)` };
    }
    if (period) {
      const rows = byQuarter(result.rows, period.name, (result.measures as { name: string }[]).map((m) => m.name), context.catalog.fiscalYearStart);
      return { answer: queryAnswer({ ...result, rows, row_count: rows.length, total_rows: rows.length }, f) };
    }
    return { answer: queryAnswer(result, f) };
  },
});

export const compareSourcesForm = defineQuestionForm({
  name: 'compare_sources',
  intents: {
    compare: ['tie', 'ties', 'tie to', 'tie out', 'compare', 'comparison', 'compared', 'versus', 'vs', 'against', 'differ', 'differs', 'different', 'difference', 'differences', 'reconcile', 'reconciliation', 'reconciling', 'reconciles', 'gap', 'gaps', 'mismatch', 'match', 'matches', 'tie out', 'ties out', 'agree', 'agrees', 'deviation', 'deviate', 'discrepancy', 'discrepancies', 'higher than', 'lower than', 'higher', 'lower', 'off by', 'disagree', 'disagrees', 'disagreed', 'disagreeing', 'disagreement', 'differed', 'differing'],
  },
  examples: ['Why does FI differ from BPC for company 1000 in December 2024?', 'Compare consolidation_mart with bpc_reporting in group currency for company 2000 in June'],
  score: (q) => (q.sources.length >= 2 && !otherKind(q, ['outliers']) ? 8 : q.intents.has('compare') && q.sources.length < 2 && q.versions.length < 2 && !q.intents.has('variance') && q.periods.length < 2 && !otherKind(q) ? 3 : 0),
  plan: (q, done, context) => {
    // "the currency-translation gap" names no source, but a measure exactly two sources hold: those two.
    const holders = q.measure ? [...context.catalog.sources.values()].filter((s) => s.measures.has(q.measure!)).map((s) => s.name) : [];
    if (q.sources.length === 0 && holders.length === 2) q = { ...q, sources: holders };
    // "Compare the export revenue with budget": a budget table is compared with its actuals.
    const partnered = q.sources.length === 1 ? versionPartner(context.catalog, q.sources[0]!) : undefined;
    if (partnered) q = { ...q, sources: partnered };
    if (q.sources.length < 2) return { clarify: `Which two sources should I compare? I know ${[...context.catalog.sources.keys()].join(', ')}.${q.sources[0] ? ` You named ${q.sources[0]}.` : ''}` };
    const [a, b] = q.sources as [string, string];
    const sourceA = context.catalog.sources.get(a)!;
    const sourceB = context.catalog.sources.get(b)!;
    const inCurrency = currencyMeasure(sourceA, q.filters, q.measure);
    if (inCurrency && sourceB.measures.has(inCurrency.measure)) q = { ...q, measure: inCurrency.measure, filters: inCurrency.filters };
    const scopeA = scopeOn(sourceA, q.filters);
    const scopeB = scopeOn(sourceB, q.filters);
    const problem = scopeA.problem ?? scopeB.problem;
    if (problem) return { clarify: problem };
    const measure = commonMeasure(context.catalog, a, b, q.measure);
    if (!measure) return { clarify: q.measure ? `${q.measure} is not a measure of both ${a} and ${b}.` : `${a} and ${b} have no measure in common.` };
    const filters = sameFilters(scopeA.filters, scopeB.filters);
    const alignOn = alignment(q, context.catalog, a, b);
    const call = { name: 'compare_sources', args: { source_a: a, source_b: b, measure, ...(filters ? { filters } : { filters_a: scopeA.filters, filters_b: scopeB.filters }), ...(alignOn ? { align_on: alignOn } : {}) } };
    // Actuals against a budget kept in its own table: a budget line loaded twice is a likely cause.
    const budgetPair = versionPartner(context.catalog, a)?.includes(b) ?? false;
    const duplicatesAvailable = budgetPair && context.tools.includes('find_duplicates') && q.intents.has('why');
    return comparisonSteps(call, done, textFormat(context.locale, context.catalog.periodCalendar), q.groupBy.filter((d) => alignOn?.includes(d)), sizeAsked(q), duplicatesAvailable);
  },
});

export const compareValuesForm = defineQuestionForm({
  name: 'compare_values',
  intents: {
    variance: ['what was budgeted', 'and what was budgeted', 'and the budget', 'and budget', 'and plan', 'and the plan', 'miss', 'missed', 'variance', 'variances', 'budget variance', 'over budget', 'under budget', 'against budget', 'vs budget', 'versus budget', 'against plan', 'vs plan', 'plan vs actual', 'budget vs actual', 'actual vs budget', 'on budget', 'on plan', 'within budget', 'from budget', 'from plan', 'how far', 'ahead of budget', 'behind budget', 'below budget', 'above budget', 'missed budget', 'miss budget', 'missed the budget', 'beat budget', 'beat the budget', 'compared to budget', 'compared with budget', 'compared to plan', 'budget gap', 'overrun', 'overspend', 'shortfall', 'short of budget', 'how far off', 'far off', 'furthest off', 'farthest off', 'most off'],
  },
  examples: ['Actual vs budget in consolidation_mart for company 3000 in November 2024'],
  score: (q) => {
    if (q.sources.length > 1 || otherKind(q)) return 0;
    const asked = q.intents.has('compare') || q.intents.has('variance') || q.intents.has('why') || q.intents.has('difference');
    const versions = q.versions.length >= 2 || (asked && q.versions.some((v) => v !== 'ACTUAL'));
    // "Retail vs industry", "December higher than November": two values of one dimension.
    const twoValues = (q.intents.has('compare') || q.intents.has('difference')) && comparedDimension(q) !== undefined;
    return versions || q.intents.has('variance') || twoValues ? 7 : 0;
  },
  plan: (q, done, context) => {
    const named = q.sources[0];
    const byVersion = q.versions.length >= 2 || q.intents.has('variance') || q.versions.some((v) => v !== 'ACTUAL') || comparedDimension(q) === undefined;
    const dimension = byVersion ? 'version' : comparedDimension(q)!;
    // Versions kept in tables of their own (a budget table beside the actuals): compare the two.
    if (byVersion && !(named && context.catalog.sources.get(named)!.dimensions.has('version'))) {
      const sides = q.versions.length >= 2 ? q.versions : ['ACTUAL', q.versions.find((v) => v !== 'ACTUAL') ?? 'BUDGET'];
      const pair = impliedVersionPair(context.catalog, [sides[0]!, sides[1]!]);
      const { version: _version, ...unversioned } = q.filters;
      if (pair && (!named || pair.includes(named))) return compareSourcesForm.plan({ ...q, sources: pair, filters: unversioned }, done, context);
    }
    const withDimension = sourcesWith(context.catalog, dimension);
    if (named && !context.catalog.sources.get(named)!.dimensions.has(dimension)) {
      return {
        clarify: dimension === 'version'
          ? `${named} has no versions (it holds actuals only), so it has no budget to compare with. Versions are in ${withDimension.join(' and ')}.`
          : `${named} has no ${dimension.replace(/_/g, ' ')} to compare by.`,
      };
    }
    const { [dimension]: compared, ...rest } = q.filters;
    if (!named && Object.keys(rest).length === 0) return { clarify: `Which source and scope should I compare in? For example "actual vs budget in ${withDimension[0]} in 2024".` };
    const hasMeasure = (candidate: Source) => !q.measure || candidate.measures.has(q.measure);
    const source = named ?? sourceFor({ ...q, filters: rest }, context.catalog, [dimension], hasMeasure) ?? sourceFor({ ...q, filters: rest }, context.catalog, [dimension]);
    if (!source) return { clarify: `No source has ${dimension.replace(/_/g, ' ')} and ${Object.keys(rest).join(', ')}.` };
    const scope = scopeOn(context.catalog.sources.get(source)!, rest);
    if (scope.problem) return { clarify: scope.problem };
    const sides = byVersion ? (q.versions.length >= 2 ? q.versions : ['ACTUAL', q.versions.find((v) => v !== 'ACTUAL') ?? 'BUDGET']) : (compared as string[]);
    const measure = commonMeasure(context.catalog, source, source, q.measure);
    // Aligning on the compared dimension would pair nothing: align on the others.
    // "Which account is furthest off?": the dimensions asked for are aligned on too, so their rows are ranked.
    const held = (d: string) => d !== dimension && context.catalog.sources.get(source)!.dimensions.has(d);
    const alignOn = [...new Set([...context.catalog.defaultAlignOn, ...q.groupBy])].filter(held);
    const args = {
      source_a: source,
      source_b: source,
      measure,
      ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}),
      filters_a: { [dimension]: sides[0] },
      filters_b: { [dimension]: sides[1] },
      ...(dimension !== 'version' || q.groupBy.some(held) ? { align_on: alignOn } : {}),
    };
    return comparisonSteps({ name: 'compare_sources', args }, done, textFormat(context.locale, context.catalog.periodCalendar), [], sizeAsked(q));
  },
});

/** "How big is the gap", "how far apart": the size of the gap goes first. */
const sizeAsked = (q: Understanding) => q.intents.has('magnitude') || q.intents.has('difference');

/** The one filtered dimension with exactly two values, when there is one. */
function comparedDimension(q: Understanding): string | undefined {
  const pairs = Object.entries(q.filters).filter(([name, value]) => name !== 'version' && Array.isArray(value) && value.length === 2);
  return pairs.length === 1 ? pairs[0]![0] : undefined;
}

export const questions = [listSourcesForm, queryForm, compareSourcesForm, compareValuesForm, rankForm, excludeForm];

/**
 * Compare, then explain when they differ, then answer. A comparison split by dimensions the
 * question asked for also reads each side by them, so matching rows are shown too (only the
 * differences are kept with the comparison). "Why is it under budget?" also scans both sides
 * for records loaded twice (when the duplicate search is available), since a duplicated budget
 * line is a gap no business reason explains.
 */
function comparisonSteps(call: { name: string; args: Record<string, unknown> }, done: readonly CompletedCall[], f: TextFormat, split: string[] = [], sizeFirst = false, checkDuplicates = false): PlanStep {
  if (done.length === 0) return { toolCalls: [call] };
  const checks = done.filter((c) => c.name === 'find_duplicates');
  // A duplicate scan that fails leaves the comparison standing.
  const failure = failedStep(done.filter((c) => c.name !== 'find_duplicates'));
  if (failure) return failure;
  const first = done[0]!.result;
  const explained = hasDifferences(first);
  if (done.length === 1 && explained) return { toolCalls: [{ name: 'explain_difference', args: { comparison_id: first.comparison_id } }] };
  const filtersOf = (which: 'a' | 'b') => ({ ...((call.args.filters as object | undefined) ?? {}), ...((call.args[`filters_${which}`] as object | undefined) ?? {}) });
  const sources = [call.args.source_a, call.args.source_b];
  if (checkDuplicates && explained && checks.length === 0 && sources[0] !== sources[1]) {
    return { toolCalls: (['a', 'b'] as const).map((which) => ({ name: 'find_duplicates', args: { source: call.args[`source_${which}`], ...(Object.keys(filtersOf(which)).length ? { filters: filtersOf(which) } : {}) } })) };
  }
  const sides = done.slice(explained ? 2 : 1).filter((c) => c.name === 'query_source');
  if (split.length && sides.length === 0 && first.summary?.match > 0) {
    const side = (which: 'a' | 'b') => ({ name: 'query_source', args: { source: call.args[`source_${which}`], measures: [call.args.measure], dimensions: split, ...(Object.keys(filtersOf(which)).length ? { filters: filtersOf(which) } : {}) } });
    return { toolCalls: [side('a'), side('b')] };
  }
  // "How far apart / by how much": the size of the gap first.
  const answer = `${sizeFirst && first.summary?.aligned_rows ? `${differenceLead(first, f)}\n` : ''}${comparisonAnswer(first, explained ? done[1]?.result : undefined, f)}`;
  const duplicated = checks.filter((c) => !c.result?.error && c.result?.duplicate_groups > 0).map((c) => `Records loaded more than once: ${c.result.finding}`);
  return { answer: [sides.length === 2 ? `${answer}\n${splitAnswer(first, sides[0]!.result, sides[1]!.result, split, f)}` : answer, ...duplicated].join('\n') };
}


function hasDifferences(result: any): boolean {
  const summary = result?.summary;
  return Boolean(summary && result.comparison_id && summary.minor_diff + summary.major_diff + summary.only_in_a + summary.only_in_b > 0);
}


/** "Split by group account": align on the catalog's keys plus the dimensions asked for. */
function alignment(q: Understanding, catalog: Catalog, a: string, b: string): string[] | undefined {
  if (!q.groupBy.length) return undefined;
  const both = (d: string) => catalog.sources.get(a)!.dimensions.has(d) && catalog.sources.get(b)!.dimensions.has(d);
  return [...new Set([...catalog.defaultAlignOn.filter(both), ...q.groupBy.filter(both)])];
}

function sameFilters(a: Record<string, FilterValue>, b: Record<string, FilterValue>): Record<string, FilterValue> | undefined {
  if (JSON.stringify(a) !== JSON.stringify(b)) return undefined;
  return Object.keys(a).length ? a : undefined;
}

function noSourceFor(q: Understanding, catalog: Catalog): string {
  const needed = [...Object.keys(q.filters), ...q.groupBy];
  return `No single source has ${needed.map((d) => d.replace(/_/g, ' ')).join(', ')}. The sources are ${[...catalog.sources.keys()].join(', ')}.`;
}

function alternatives(q: Understanding, catalog: Catalog): string {
  const fitting = [...catalog.sources.values()].filter((source) => Object.keys(q.filters).every((d) => source.dimensions.has(d))).map((s) => s.name);
  return fitting.length ? `Did you mean ${fitting.join(' or ')}?` : '';
}
