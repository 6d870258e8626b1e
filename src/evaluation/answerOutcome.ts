/**
 * Classifies an answer against what a question expects: correct (every expected figure is
 * in it, or the expected knowledge file is cited), clarified (a question back, no figure),
 * declined (an honest "I can't", no figure) or wrong (it states figures, and not the right
 * ones; or figures where it should have asked back or declined). Model-agnostic: it reads
 * only the answer text, so the same rules judge the offline model and a hosted one.
 */
import type { Expectation } from './questionSet.ts';

export type Outcome = 'correct' | 'clarified' | 'declined' | 'wrong';

/** Amounts as the answers print them: 1,234.56 and -0.50 (en-US). */
const amountPattern = /-?\d{1,3}(?:,\d{3})*\.\d{2}(?!\d)/g;

/**
 * The amounts an answer states.
 *
 * @example
 * amountsIn('FI shows 443,100.00 EUR, BPC 333,100.00 EUR.') // ['443,100.00', '333,100.00']
 */
function amountsIn(answer: string): string[] {
  return answer.match(amountPattern) ?? [];
}

/**
 * The outcome of one answer.
 *
 * @example
 * outcomeOf('Total amount …: 443,100.00 EUR.', { kind: 'answer', figures: ['443,100.00'] }) // 'correct'
 */
export function outcomeOf(answer: string, expect: Expectation): Outcome {
  const states = amountsIn(answer).length > 0;
  const noFigure: Outcome = /\?/.test(answer) ? 'clarified' : 'declined';
  switch (expect.kind) {
    case 'answer':
      if (expect.figures.every((figure) => answer.includes(figure))) return 'correct';
      return states ? 'wrong' : noFigure;
    case 'knowledge':
      if (answer.includes(expect.cites)) return 'correct';
      return states ? 'wrong' : noFigure;
    default:
      return states ? 'wrong' : noFigure;
  }
}
