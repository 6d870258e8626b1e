/**
 * The figures of a run (src/evaluation/summary.ts): accuracy counts only the questions that
 * expect figures or a knowledge citation, a question with no answer counts against it, and
 * model calls, tokens and latency come from the answered questions only.
 */
import { describe, expect, it } from 'vitest';
import type { QuestionResult } from '../../src/evaluation/runEvaluation.ts';
import { percentile, summarise } from '../../src/evaluation/summary.ts';

function result(id: string, expected: QuestionResult['expected'], outcome: QuestionResult['outcome'], latency: number, figures: QuestionResult['figures'] = null, repaired = false): QuestionResult {
  const answered = outcome !== 'error';
  return {
    id, question: `question ${id}`, follow_up: false, expected, outcome,
    answer: answered ? `answer ${id}` : null, error: answered ? null : 'HTTP 502 model-unavailable: down', http_status: answered ? 200 : 502,
    latency_ms: latency, model_calls: answered ? 2 : null, input_tokens: answered ? 100 : null, output_tokens: answered ? 10 : null,
    finished: answered ? true : null, session_id: null, figures: answered ? figures : null, repaired: answered ? repaired : null,
  };
}

const figures: QuestionResult['expected'] = { kind: 'answer', figures: ['1.00'] };

describe('figures of a run', () => {
  it('totals verified and unverified figures over the answers, with the answers repaired', () => {
    const summary = summarise([
      result('a', figures, 'correct', 10, { verified: 4, unverified: 0, unverified_texts: [] }),
      result('b', figures, 'wrong', 20, { verified: 1, unverified: 1, unverified_texts: ['512,345.67'] }, true),
      result('c', figures, 'error', 30),
    ]);
    expect(summary.figures).toEqual({ verified: 5, unverified: 1, share_verified: 0.8333, answers_with_unverified: 1, repaired: 1 });
  });

  it('says none were reported when the instance returns no figures', () => {
    expect(summarise([result('a', figures, 'correct', 10)]).figures).toBeNull();
  });
});

describe('summary of a run', () => {
  it('measures accuracy over the questions that expect figures or knowledge, errors included', () => {
    const summary = summarise([
      result('a', figures, 'correct', 10),
      result('b', figures, 'wrong', 20),
      result('c', { kind: 'knowledge', cites: 'k.md' }, 'correct', 30),
      result('d', figures, 'error', 5000),
      result('e', { kind: 'clarify', reason: 'vague' }, 'clarified', 40),
      result('f', { kind: 'decline', reason: 'out of scope' }, 'declined', 50),
    ]);
    expect(summary.outcomes).toEqual({ correct: 2, clarified: 1, declined: 1, wrong: 1, error: 1 });
    expect(summary.accuracy).toMatchObject({ correct: 2, of: 4, share: 0.5 });
    expect(summary.accuracy.denominator).toContain('expect figures or a knowledge citation');
    expect(summary.by_expectation.answer).toEqual({ questions: 3, correct: 1, clarified: 0, declined: 0, wrong: 1, error: 1 });
    expect(summary.wrong_answers).toEqual([{ id: 'b', question: 'question b', expected: figures, answer: 'answer b' }]);
    expect(summary.errors).toEqual([{ id: 'd', question: 'question d', error: 'HTTP 502 model-unavailable: down' }]);
    expect(summary.model_calls).toEqual({ total: 10, per_answer: 2 });
    expect(summary.tokens).toEqual({ input: 500, output: 50 });
    // The 5 s of the failed question are not an answer's latency.
    expect(summary.latency_ms).toEqual({ answered: 5, p50: 30, p95: 50, max: 50 });
  });

  it('has no accuracy when nothing expects figures', () => {
    expect(summarise([result('e', { kind: 'clarify', reason: 'vague' }, 'clarified', 1)]).accuracy.share).toBeNull();
    expect(summarise([]).latency_ms).toEqual({ answered: 0, p50: null, p95: null, max: null });
  });

  it('takes nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });
});
