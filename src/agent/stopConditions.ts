/**
 * When the loop stops: small predicates, so the rules read as what they are.
 */
import type { AIMessage } from '@langchain/core/messages';
import { MAX_MODEL_CALLS_PER_QUESTION } from './constants.ts';

/** The model asked for tools (well-formed or not): the loop must answer them and go on. */
export function hasToolCalls(message: AIMessage): boolean {
  return (message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0;
}

/** The per-question budget of model calls is spent. */
export function reachedModelCallLimit(modelCalls: number, limit = MAX_MODEL_CALLS_PER_QUESTION): boolean {
  return modelCalls >= limit;
}
