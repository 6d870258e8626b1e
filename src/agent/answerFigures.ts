/**
 * The receipts of a finished answer: every figure it states, each traced to the tool result it
 * came from (src/receipts) or marked unverified. Checked against this turn's tool results and
 * those of the earlier turns the model was shown, so a figure quoted from an earlier answer's
 * data keeps its receipt (that turn's tool call id).
 */
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { checkAnswer, type ToolResult } from '../receipts/index.ts';
import type { AnswerFigure, ToolCallRecord } from '../sessions/storedTurn.ts';

/** Declared by the sessions layer, which stores it with the turn. */
export type { AnswerFigure };

/**
 * The figures of `answer` with their receipts.
 *
 * @example
 * const figures = answerFigures(run.answer, run.toolCalls, history, 'en-US');
 * figures.filter((figure) => figure.receipt.kind === 'unverified'); // what no tool result backs
 */
export function answerFigures(answer: string, toolCalls: readonly ToolCallRecord[], history: readonly BaseMessage[], locale?: string): AnswerFigure[] {
  // A failed call's error text holds no data: a figure only it "backs" is not verified.
  const current = toolCalls.filter((call) => call.ok).map(({ id, name, result }) => ({ id, name, result }));
  // This turn's results first: the search's caps keep them whole, and a value found in both names this turn's call.
  const { figures } = checkAnswer(answer, [...current, ...earlierResults(history).reverse()], locale ? { locale } : {});
  return figures.map(({ text, start, end, value, kind, receipt }) => ({ text, start, end, value, kind, receipt }));
}

/** Tool results of earlier turns, as the model saw them (stored as JSON text; unreadable ones are skipped). */
function earlierResults(history: readonly BaseMessage[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (const message of history) {
    if (!ToolMessage.isInstance(message) || message.status === 'error' || typeof message.content !== 'string') continue;
    try {
      results.push({ id: message.tool_call_id, name: message.name ?? 'tool', result: JSON.parse(message.content) });
    } catch {
      // Not JSON (an older store's text): it backs no figure.
    }
  }
  return results;
}

/**
 * The texts of the figures no tool result backs, in order, each once.
 *
 * @example
 * unverifiedTexts(answerFigures('FI shows 999.99 EUR.', toolCalls, [])) // ['999.99']
 */
export function unverifiedTexts(figures: readonly AnswerFigure[]): string[] {
  return [...new Set(figures.filter((figure) => figure.receipt.kind === 'unverified').map((figure) => figure.text))];
}

/**
 * The one request to repair an answer: which figures appear in no tool result, and what to do.
 * Sent as a user message, which every OpenAI-compatible server accepts mid-conversation.
 *
 * @example
 * repairRequest(['512,345.67']).content // 'Before your answer is shown: …'
 */
export function repairRequest(unverified: readonly string[]): HumanMessage {
  return new HumanMessage({
    content: `Before your answer is shown: these figures in it appear in no tool result of this conversation: ${unverified.join(', ')}. Write the whole answer again, stating only figures the tool results give (or their differences, sums, averages, percentage changes or shares). Remove a figure you cannot back, or call a tool to get it.`,
    additional_kwargs: { answer_check: true },
  });
}
