/**
 * The questions the embedded offline model answers with the data_quality tools: duplicated
 * records ("why is December doubled?"), blank values ("lines that lack a profit centre") and
 * periods that stand out ("which month sticks out?"), each checked in one source.
 */
import { defineQuestionForm, failedStep, periodDimension, scopeOn, sourceFor, textFormat, type Catalog, type CompletedCall, type PlannedCall, type Understanding } from '../../src/skills/api.ts';
import { blanksAnswer, countedOnceAnswer, duplicatesAnswer, outliersAnswer } from './answers.ts';

const withoutCopies = ['without the duplicates', 'without duplicates', 'excluding duplicates', 'excluding the duplicates', 'net of duplicates', 'deduplicated', 'without the extra copies', 'without the copies', 'without copies'];

export const duplicatesForm = defineQuestionForm({
  name: 'find_duplicates',
  intents: {
    duplicates: [...withoutCopies, 'duplicate', 'duplicates', 'duplicated', 'duplication', 'duplicate records', 'doubled', 'double', 'twice', 'double counted', 'double counting', 'counted twice', 'loaded twice', 'posted twice', 'booked twice', 'copies', 'copied', 'repeated', 'loaded two times', 'loaded multiple times', 'delta load'],
    // "the budget if the duplicated line is counted only once": the total without the extra copies.
    // Phrases naming the copies are listed under duplicates too, so they keep asking about them.
    counted_once: ['counted once', 'counted only once', 'only once', 'just once', 'once only', ...withoutCopies],
    too_high: ['too high', 'too much', 'too big', 'too large', 'inflated', 'overstated', 'higher than expected', 'higher than usual', 'higher than normal', 'higher than before', 'jumped', 'jump'],
  },
  examples: ['Why is December doubled in fi_reporting?', 'Are there duplicate records in fi_reporting for company 1000?'],
  score: (q) => (q.sources.length < 2 && !q.intents.has('meaning') && (q.intents.has('duplicates') || (q.intents.has('why') && q.intents.has('too_high'))) ? 9 : 0),
  plan: (q, done, context) => {
    const call = withScope(q, context.catalog, 'find_duplicates', ['document', 'document_line']);
    if ('clarify' in call) return call;
    if (done.length === 0) return { toolCalls: [call] };
    const failure = failedStep(done);
    if (failure) return failure;
    const duplicates = done[0]!.result;
    // "Why is it too high?" with no duplicates: does the period stand out against the others at all?
    if (done.length === 1 && duplicates.duplicate_groups === 0 && q.intents.has('why')) {
      const outliers = outliersCall(q, context.catalog);
      if (outliers && !('clarify' in outliers)) return { toolCalls: [outliers] };
    }
    // "… if the duplicated line is counted only once?": the scope's total as loaded, then less the copies.
    const once = q.intents.has('counted_once') && duplicates.duplicate_groups > 0 && duplicates.measure;
    if (once && done.length === 1) return { toolCalls: [{ name: 'query_source', args: { source: duplicates.source, measures: [duplicates.measure.name], ...(call.args.filters ? { filters: call.args.filters } : {}) } }] };
    const f = textFormat(context.locale, context.catalog.periodCalendar);
    const answer = duplicatesAnswer(duplicates, f, once ? undefined : done[1]?.result);
    const currencyDimension = context.catalog.sources.get(duplicates.source)?.measures.get(duplicates.measure?.name)?.currencyDimension;
    return { answer: once ? `${countedOnceAnswer(duplicates, done[1]!.result, f, currencyDimension)}\n${answer}` : answer };
  },
});

export const blanksForm = defineQuestionForm({
  name: 'find_blank_values',
  intents: {
    blanks: ['blank', 'blanks', 'empty', 'null', 'nulls', 'unassigned', 'not assigned', 'assigned', 'notassigned', 'have no', 'has no', 'with no', 'without a', 'without an', 'lack', 'lacks', 'lacking', 'without', 'missing master data', 'incomplete master data', 'not filled', 'unfilled', 'missing a', 'missing an', 'placeholder'],
  },
  examples: ['Which lines have a blank profit center?', 'Are there empty values in fi_reporting for company 3000?'],
  score: (q) => (q.sources.length < 2 && q.intents.has('blanks') && !q.intents.has('meaning') ? 9 : 0),
  plan: (q, done, context) => {
    const dimensions = q.dimensions.filter((d) => !(typeof q.filters[d] === 'string') && d !== 'period' && d !== 'company');
    const sourceName = sourceFor(q, context.catalog, dimensions);
    if (!sourceName) return { clarify: `No source has ${dimensions.join(', ')}.` };
    const scope = scopeOn(context.catalog.sources.get(sourceName)!, q.filters);
    if (scope.problem) return { clarify: scope.problem };
    const call = { name: 'find_blank_values', args: { source: sourceName, ...(dimensions.length ? { dimensions } : {}), ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}) } };
    if (done.length === 0) return { toolCalls: [call] };
    return failedStep(done) ?? { answer: blanksAnswer(done[0]!.result, textFormat(context.locale, context.catalog.periodCalendar)) };
  },
});

export const outliersForm = defineQuestionForm({
  name: 'find_outlier_periods',
  intents: {
    outliers: ['unusual', 'outlier', 'outliers', 'anomaly', 'anomalies', 'anomalous', 'abnormal', 'spike', 'spikes', 'stand out', 'stands out', 'standing out', 'stick out', 'sticks out', 'sticking out', 'odd', 'strange', 'suspicious', 'irregular', 'out of line', 'unexpected'],
    // "Which month looks off?" asks which period stands out; "June looks off, why?" is about June.
    looks_off: ['looks off', 'look off', 'looked off', 'seems off', 'seem off', 'looks wrong', 'look wrong'],
  },
  examples: ['Find unusual periods in fi_reporting for company 1000', 'Which month sticks out in the mart for company 3000?'],
  score: (q) => (q.sources.length < 2 && (q.intents.has('outliers') || (q.intents.has('looks_off') && typeof q.filters.period !== 'string')) && !q.intents.has('meaning') ? 9 : 0),
  plan: (q, done, context) => {
    const call = outliersCall(q, context.catalog);
    if (!call) return { clarify: 'No source has periods to compare.' };
    if ('clarify' in call) return call;
    if (done.length === 0) return { toolCalls: [call] };
    const failure = failedStep(done);
    if (failure) return failure;
    // The top outlier was loaded by more load requests than usual: look for the duplicated load there.
    const follow = done.length === 1 ? duplicatesForOutlier(done[0]!) : undefined;
    if (follow) return { toolCalls: [follow] };
    return { answer: outliersAnswer(done[0]!.result, textFormat(context.locale, context.catalog.periodCalendar), done[1]?.result) };
  },
});

export const questions = [duplicatesForm, blanksForm, outliersForm];

function withScope(q: Understanding, catalog: Catalog, tool: string, needed: string[]): PlannedCall | { clarify: string } {
  const sourceName = sourceFor(q, catalog, needed) ?? sourceFor(q, catalog);
  if (!sourceName) return { clarify: 'Which source should I check?' };
  const scope = scopeOn(catalog.sources.get(sourceName)!, q.filters);
  if (scope.problem) return { clarify: scope.problem };
  return { name: tool, args: { source: sourceName, ...(Object.keys(scope.filters).length ? { filters: scope.filters } : {}) } };
}

/**
 * Periods are compared with each other, so a single period named in the question is not a
 * filter here; series are split by the catalog's alignment dimensions (company) unless the
 * question pins them or says "by …".
 */
function outliersCall(q: Understanding, catalog: Catalog): PlannedCall | { clarify: string } | undefined {
  const sourceName = q.sources[0] ?? [...catalog.sources.values()].find((s) => periodDimension(s) !== undefined)?.name;
  const source = sourceName === undefined ? undefined : catalog.sources.get(sourceName);
  const period = source && periodDimension(source);
  if (!source || !period) return undefined;
  const scope = scopeOn(source, q.filters);
  if (scope.problem) return { clarify: scope.problem };
  const filters = Object.fromEntries(Object.entries(scope.filters).filter(([name, value]) => !(name === period.name && typeof value === 'string')));
  const pinned = (name: string) => typeof filters[name] === 'string';
  const asked = q.groupBy.filter((d) => d !== period.name);
  const by = asked.length ? asked : catalog.defaultAlignOn.filter((d) => d !== period.name && source.dimensions.has(d) && !pinned(d));
  return { name: 'find_outlier_periods', args: { source: source.name, ...(Object.keys(filters).length ? { filters } : {}), ...(by.length ? { by } : {}) } };
}

/** find_duplicates for the top outlier's series and period, when that period had more load requests than usual. */
function duplicatesForOutlier(call: CompletedCall): PlannedCall | undefined {
  const result = call.result;
  const top = result?.outliers?.[0];
  if (!top) return undefined;
  const by = (call.args.by as string[] | undefined) ?? [];
  const sameSeries = (row: Record<string, unknown>) => row.period === top.period && by.every((name) => row[name] === top[name]);
  if (!(result.multiple_load_requests ?? []).some(sameSeries)) return undefined;
  const filters = { ...(call.args.filters as Record<string, unknown> | undefined), ...Object.fromEntries(by.map((name) => [name, top[name]])), period: top.period };
  return { name: 'find_duplicates', args: { source: result.source, filters } };
}

