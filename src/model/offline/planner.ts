/**
 * Decides the offline model's next step for a question: which tool calls to make, or, once
 * the results are in, the answer. A comparison with differences is followed by
 * explain_difference, so the answer says where the gap sits and why, not only how big it is.
 */
import type { Catalog } from '../../catalog/catalog.ts';
import { blanksAnswer, capabilitiesAnswer, comparisonAnswer, duplicatesAnswer, errorAnswer, outliersAnswer, queryAnswer, sourcesAnswer } from './answerWriter.ts';
import type { ParsedQuestion } from './questionParser.ts';

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

export interface CompletedCall extends PlannedCall {
  result: any;
}

export type PlanStep = { toolCalls: PlannedCall[] } | { answer: string };

/** The next step given the question and the calls already answered in this turn. */
export function nextStep(question: ParsedQuestion, done: readonly CompletedCall[], catalog: Catalog): PlanStep {
  const failed = done.find((call) => call.result?.error);
  if (failed) return { answer: errorAnswer(failed.name, failed.result.error) };
  switch (question.kind) {
    case 'list_sources':
      return done.length === 0 ? { toolCalls: [{ name: 'list_sources', args: {} }] } : { answer: sourcesAnswer(done[0]!.result) };
    case 'query':
      return done.length === 0 ? { toolCalls: [queryCall(question, catalog)] } : { answer: queryAnswer(done[0]!.result) };
    case 'compare_sources':
    case 'compare_versions': {
      const call = question.kind === 'compare_sources' ? sourceComparison(question, catalog) : versionComparison(question, catalog);
      if (!call) return { answer: capabilitiesAnswer([...catalog.sources.keys()]) };
      if (done.length === 0) return { toolCalls: [call] };
      const first = done[0]!.result;
      if (done.length === 1 && hasDifferences(first)) return { toolCalls: [{ name: 'explain_difference', args: { comparison_id: first.comparison_id } }] };
      return { answer: comparisonAnswer(first, done[1]?.result) };
    }
    case 'find_duplicates': {
      if (done.length === 0) return { toolCalls: [duplicatesCall(question, catalog)] };
      const duplicates = done[0]!.result;
      // "Why is it too high?" with no duplicates: does the period stand out against the others at all?
      if (done.length === 1 && duplicates.duplicate_groups === 0 && question.why) {
        const outliers = outliersCall(question, catalog);
        if (outliers) return { toolCalls: [outliers] };
      }
      return { answer: duplicatesAnswer(duplicates, done[1]?.result) };
    }
    case 'find_blank_values':
      return done.length === 0 ? { toolCalls: [blanksCall(question, catalog)] } : { answer: blanksAnswer(done[0]!.result) };
    case 'find_outlier_periods': {
      const call = outliersCall(question, catalog);
      if (!call) return { answer: capabilitiesAnswer([...catalog.sources.keys()]) };
      if (done.length === 0) return { toolCalls: [call] };
      // The top outlier was loaded by more load requests than usual: look for the duplicated load there.
      const follow = done.length === 1 ? duplicatesForOutlier(done[0]!) : undefined;
      if (follow) return { toolCalls: [follow] };
      return { answer: outliersAnswer(done[0]!.result, done[1]?.result) };
    }
    default:
      return { answer: capabilitiesAnswer([...catalog.sources.keys()]) };
  }
}

/** The named source, else the first one that has all the dimensions a check needs. */
function sourceWith(question: ParsedQuestion, catalog: Catalog, dimensions: string[]): string {
  const named = question.sources[0];
  if (named) return named;
  const sources = [...catalog.sources.values()];
  return (sources.find((source) => dimensions.every((d) => source.dimensions.has(d))) ?? sources[0]!).name;
}

function withFilters(question: ParsedQuestion, filters = question.filters): Record<string, unknown> {
  return Object.keys(filters).length ? { filters } : {};
}

function duplicatesCall(question: ParsedQuestion, catalog: Catalog): PlannedCall {
  return { name: 'find_duplicates', args: { source: sourceWith(question, catalog, ['document', 'document_line']), ...withFilters(question) } };
}

function blanksCall(question: ParsedQuestion, catalog: Catalog): PlannedCall {
  const dimensions = question.blankDimensions;
  return {
    name: 'find_blank_values',
    args: { source: sourceWith(question, catalog, dimensions), ...(dimensions.length ? { dimensions } : {}), ...withFilters(question) },
  };
}

/**
 * Periods are compared with each other, so a single period named in the question is not a
 * filter here; series are split by the catalog's alignment dimensions (company) unless the
 * question pins them or says "by …".
 */
function outliersCall(question: ParsedQuestion, catalog: Catalog): PlannedCall | undefined {
  const sourceName = question.sources[0] ?? [...catalog.sources.values()].find((s) => [...s.dimensions.values()].some((d) => d.type === 'period'))?.name;
  const source = sourceName === undefined ? undefined : catalog.sources.get(sourceName);
  const period = source && [...source.dimensions.values()].find((d) => d.type === 'period');
  if (!source || !period) return undefined;
  const filters = Object.fromEntries(Object.entries(question.filters).filter(([name, value]) => !(name === period.name && typeof value === 'string')));
  const pinned = (name: string) => typeof filters[name] === 'string';
  const asked = question.dimensions.filter((d) => d !== period.name);
  const by = asked.length ? asked : catalog.defaultAlignOn.filter((d) => d !== period.name && source.dimensions.has(d) && !pinned(d));
  return { name: 'find_outlier_periods', args: { source: source.name, ...withFilters(question, filters), ...(by.length ? { by } : {}) } };
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

function queryCall(question: ParsedQuestion, catalog: Catalog): PlannedCall {
  const source = question.sources[0] ?? [...catalog.sources.keys()][0]!;
  return {
    name: 'query_source',
    args: {
      source,
      ...(question.measure ? { measures: [question.measure] } : {}),
      ...(question.dimensions.length ? { dimensions: question.dimensions } : {}),
      ...(Object.keys(question.filters).length ? { filters: question.filters } : {}),
    },
  };
}

function commonMeasure(catalog: Catalog, a: string, b: string, wanted: string | undefined): string | undefined {
  const sourceA = catalog.sources.get(a)!;
  const sourceB = catalog.sources.get(b)!;
  if (wanted && sourceA.measures.has(wanted) && sourceB.measures.has(wanted)) return wanted;
  return sourceA.defaultMeasures.find((m) => sourceB.measures.has(m)) ?? [...sourceA.measures.keys()].find((m) => sourceB.measures.has(m));
}

function sourceComparison(question: ParsedQuestion, catalog: Catalog): PlannedCall | undefined {
  const [a, b] = question.sources as [string, string];
  const measure = commonMeasure(catalog, a, b, question.measure);
  if (!measure) return undefined;
  return {
    name: 'compare_sources',
    args: { source_a: a, source_b: b, measure, ...(Object.keys(question.filters).length ? { filters: question.filters } : {}) },
  };
}

function versionComparison(question: ParsedQuestion, catalog: Catalog): PlannedCall | undefined {
  const source = question.sources[0] ?? [...catalog.sources.values()].find((s) => s.dimensions.has('version'))?.name;
  if (!source || !catalog.sources.get(source)!.dimensions.has('version')) return undefined;
  const measure = commonMeasure(catalog, source, source, question.measure);
  const { version: _ignored, ...filters } = question.filters;
  const [first, second] = question.versions as [string, string];
  return {
    name: 'compare_sources',
    args: {
      source_a: source,
      source_b: source,
      measure,
      ...(Object.keys(filters).length ? { filters } : {}),
      filters_a: { version: first },
      filters_b: { version: second },
    },
  };
}

function hasDifferences(result: any): boolean {
  const summary = result?.summary;
  return Boolean(summary && result.comparison_id && summary.minor_diff + summary.major_diff + summary.only_in_a + summary.only_in_b > 0);
}
