/**
 * Receipts for the figures of an answer: every number the answer states, read locale-aware,
 * each traced to the tool result it came from (a leaf, or a difference, sum, percentage change
 * or share of leaves) or marked unverified. Pure: text and tool results in, figures out.
 */
import { figuresIn, type FigureOptions } from './figures.ts';
import { receiptsFor, type CheckedFigure, type ToolResult } from './receipts.ts';

export { figuresIn, type Figure, type FigureKind, type FigureOptions } from './figures.ts';
export { receiptsFor, type CheckedFigure, type DerivedOp, type Place, type Receipt, type ToolResult } from './receipts.ts';

/** The figures of an answer with their receipts, and those of them no tool result backs. */
export interface AnswerCheck {
  figures: CheckedFigure[];
  unverified: CheckedFigure[];
}

/**
 * Reads the figures of `answer` and finds each one's receipt in `toolResults`.
 *
 * @example
 * const { figures, unverified } = checkAnswer('FI shows 443,100.00 EUR for company 1000.', [
 *   { id: 'call_1', name: 'query_source', result: { rows: [{ company: '1000', amount: 443100 }] } },
 * ]);
 * figures.map((f) => f.receipt) // [{ kind: 'value', call: 'call_1', path: 'rows[0].amount' }, { kind: 'not_a_figure' }] (443,100.00, then 1000)
 * unverified // []
 */
export function checkAnswer(answer: string, toolResults: ToolResult[], options: FigureOptions = {}): AnswerCheck {
  const figures = receiptsFor(figuresIn(answer, options), toolResults);
  return { figures, unverified: figures.filter((figure) => figure.receipt.kind === 'unverified') };
}
