/**
 * Classifies an answer against what a question expects: correct (every expected figure and
 * mention is in it and no `never` amount, or the expected knowledge file is cited), clarified (a question back, no figure),
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
 * Whether the answer names `mention` as a whole word (case-insensitive); '|' separates
 * alternatives, so 'November|2024011' accepts either way of naming the month.
 *
 * @example
 * mentioned('Only 2024009 is off.', 'September|2024009') // true
 * mentioned('actuals only', 'ACTUAL') // false: 'actuals' is another word; write 'ACTUAL|actuals'
 */
export function mentioned(answer: string, mention: string): boolean {
  return mention.split('|').some((word) => {
    const escaped = word.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'iu').test(answer);
  });
}

/**
 * The outcome of one answer.
 *
 * @example
 * outcomeOf('Total amount …: 443,100.00 EUR.', { kind: 'answer', figures: ['443,100.00'] }) // 'correct'
 * outcomeOf('bpc_reporting holds versions ACTUAL and BUDGET.', { kind: 'answer', figures: [], mentions: ['ACTUAL', 'BUDGET'], never: ['0.00'] }) // 'correct'
 */
export function outcomeOf(answer: string, expect: Expectation): Outcome {
  const states = amountsIn(answer).length > 0;
  const noFigure: Outcome = /\?/.test(answer) ? 'clarified' : 'declined';
  switch (expect.kind) {
    case 'answer': {
      // A forbidden amount (a zero side for a value with no rows) is wrong whatever else is said.
      if ((expect.never ?? []).some((figure) => amountsIn(answer).includes(figure))) return 'wrong';
      const complete = expect.figures.every((figure) => answer.includes(figure)) && (expect.mentions ?? []).every((mention) => mentioned(answer, mention));
      if (complete) return 'correct';
      return states ? 'wrong' : noFigure;
    }
    case 'knowledge':
      if (answer.includes(expect.cites)) return 'correct';
      return states ? 'wrong' : noFigure;
    default:
      return states ? 'wrong' : noFigure;
  }
}
