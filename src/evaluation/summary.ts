/**
 * The figures of an evaluation run: outcome counts, accuracy (with its denominator spelled
 * out, since "accuracy" over a set that mixes answers with refusals means nothing otherwise),
 * the wrong answers, model calls, tokens and client-measured latency. Kept apart from the
 * runner so a report can be recomputed from the --out JSON's results.
 */
import type { EvaluationOutcome, ExpectedReply, QuestionResult } from './runEvaluation.ts';

export type OutcomeCounts = Record<EvaluationOutcome, number>;

/** What accuracy is the share of; printed with every accuracy figure. */
const ACCURACY_DENOMINATOR = 'questions that expect figures or a knowledge citation (expect.kind answer or knowledge), questions that got no answer included';

export interface EvaluationSummary {
  questions: number;
  outcomes: OutcomeCounts;
  /** correct / of; share null when no question expects figures or knowledge. */
  accuracy: { correct: number; of: number; share: number | null; denominator: string };
  /** Outcomes per expected kind: e.g. how often a question that needs asking back was asked back. */
  by_expectation: Record<ExpectedReply['kind'], OutcomeCounts & { questions: number }>;
  wrong_answers: { id: string; question: string; expected: ExpectedReply; answer: string }[];
  errors: { id: string; question: string; error: string }[];
  /** Questions whose model-call budget ran out (finished: false). */
  unfinished: number;
  /** Over the answered questions (an error reports none). */
  model_calls: { total: number; per_answer: number | null };
  tokens: { input: number; output: number };
  /** Per answered question, measured by the client, in ms. */
  latency_ms: { answered: number; p50: number | null; p95: number | null; max: number | null };
  /** Figures of the answers with a receipt and without (null when the instance returns no figures), and answers repaired. */
  figures: { verified: number; unverified: number; share_verified: number | null; answers_with_unverified: number; repaired: number } | null;
}

const emptyCounts = (): OutcomeCounts => ({ correct: 0, clarified: 0, declined: 0, wrong: 0, error: 0 });

/**
 * The summary of a run's results.
 * @example
 * summarise(report.results).accuracy // { correct: 184, of: 209, share: 0.8804, denominator: '…' }
 */
export function summarise(results: QuestionResult[]): EvaluationSummary {
  const outcomes = emptyCounts();
  const byExpectation = {} as EvaluationSummary['by_expectation'];
  for (const kind of ['answer', 'clarify', 'decline', 'knowledge'] as const) byExpectation[kind] = { questions: 0, ...emptyCounts() };
  for (const result of results) {
    outcomes[result.outcome] += 1;
    byExpectation[result.expected.kind].questions += 1;
    byExpectation[result.expected.kind][result.outcome] += 1;
  }
  const scored = results.filter((result) => result.expected.kind === 'answer' || result.expected.kind === 'knowledge');
  const correct = scored.filter((result) => result.outcome === 'correct').length;
  const answered = results.filter((result) => result.outcome !== 'error');
  const modelCalls = sum(answered.map((result) => result.model_calls ?? 0));
  const latencies = answered.map((result) => result.latency_ms).sort((a, b) => a - b);
  return {
    questions: results.length,
    outcomes,
    accuracy: { correct, of: scored.length, share: scored.length > 0 ? round(correct / scored.length, 4) : null, denominator: ACCURACY_DENOMINATOR },
    by_expectation: byExpectation,
    wrong_answers: results
      .filter((result) => result.outcome === 'wrong')
      .map((result) => ({ id: result.id, question: result.question, expected: result.expected, answer: result.answer ?? '' })),
    errors: results.filter((result) => result.outcome === 'error').map((result) => ({ id: result.id, question: result.question, error: result.error ?? '' })),
    unfinished: answered.filter((result) => result.finished === false).length,
    model_calls: { total: modelCalls, per_answer: answered.length > 0 ? round(modelCalls / answered.length, 2) : null },
    tokens: { input: sum(answered.map((result) => result.input_tokens ?? 0)), output: sum(answered.map((result) => result.output_tokens ?? 0)) },
    latency_ms: { answered: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) ?? null },
    figures: figureSummary(answered),
  };
}

function figureSummary(answered: QuestionResult[]): EvaluationSummary['figures'] {
  const checked = answered.filter((result) => result.figures);
  if (checked.length === 0) return null;
  const verified = sum(checked.map((result) => result.figures!.verified));
  const unverified = sum(checked.map((result) => result.figures!.unverified));
  return {
    verified,
    unverified,
    share_verified: verified + unverified > 0 ? round(verified / (verified + unverified), 4) : null,
    answers_with_unverified: checked.filter((result) => result.figures!.unverified > 0).length,
    repaired: checked.filter((result) => result.repaired).length,
  };
}

/**
 * The nearest-rank percentile of ascending values (null when there are none).
 * @example
 * percentile([10, 20, 30, 40], 50) // 20
 * percentile([10, 20, 30, 40], 95) // 40
 */
export function percentile(ascending: number[], p: number): number | null {
  if (ascending.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * ascending.length));
  return ascending[rank - 1] ?? null;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
