/**
 * Decides the offline model's next step for a question: which tool calls to make, or, once
 * the results are in, the answer. A comparison with differences is followed by
 * explain_difference, so the answer says where the gap sits and why, not only how big it is.
 */
import type { Catalog } from '../../catalog/catalog.ts';
import { capabilitiesAnswer, comparisonAnswer, errorAnswer, queryAnswer, sourcesAnswer } from './answerWriter.ts';
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
    default:
      return { answer: capabilitiesAnswer([...catalog.sources.keys()]) };
  }
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
