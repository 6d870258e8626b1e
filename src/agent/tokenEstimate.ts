/**
 * How many tokens messages take, so the context window can hold the history to a budget.
 *
 * Tokens are estimated, not counted: characters / 3.2 plus a per-message overhead. Measured
 * against o200k_base (gpt-4o, gpt-4o-mini) on this service's real tool results, JSON rows
 * run at 3.35–3.6 characters per token, prose and catalog text at 3.3–4.1, so the estimate
 * errs on the safe side (0–28% high) and never under-counts a realistic tool result.
 */
import type { AIMessage, BaseMessage, ToolMessage } from '@langchain/core/messages';
import { contentChars, wireToolCalls } from '../shared/messageText.ts';

/** Characters per token of the estimate; see the module comment for how it was chosen. */
export const CHARS_PER_TOKEN = 3.2;
/** Role, separators and framing of each message in the chat format. */
const TOKENS_PER_MESSAGE = 4;
/** Id, type and function framing of each tool call, on top of its name and arguments. */
const TOKENS_PER_TOOL_CALL = 8;
/** The reply's priming tokens, counted once per request. */
export const TOKENS_PER_REQUEST = 3;

/** Rough token estimate of messages as a model would see them (content + tool call arguments + per-message overhead). */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  if (messages.length === 0) return 0;
  return TOKENS_PER_REQUEST + messages.reduce((sum, message) => sum + messageTokens(message), 0);
}

/**
 * Tool definitions as a request carries them, estimated like messages (characters / 3.2), so the
 * window is fitted with one measure on the safe side. (skill:check and docs/models.md's figures use
 * the plainer characters / 4 of modelDefinition.ts, to compare definitions with each other.)
 * @example
 * estimateDefinitionTokens(bound.definitions) // 180
 */
export function estimateDefinitionTokens(definitions: readonly unknown[]): number {
  return definitions.length === 0 ? 0 : Math.ceil(JSON.stringify(definitions).length / CHARS_PER_TOKEN);
}

/**
 * One message without the per-request tokens, so a history can be sized a message at a time.
 * It reads the message's `type`, not LangChain's class guards: the question trace imports this
 * module, and it is loaded at start, when LangChain is not.
 */
export function messageTokens(message: BaseMessage): number {
  let chars = contentChars(message.content) + (message.name?.length ?? 0);
  let tokens = TOKENS_PER_MESSAGE;
  if (message.type === 'tool') chars += (message as ToolMessage).tool_call_id.length;
  if (message.type === 'ai') {
    const calls = wireToolCalls(message as AIMessage);
    chars += calls.reduce((sum, call) => sum + call.id.length + call.name.length + call.arguments.length, 0);
    tokens += calls.length * TOKENS_PER_TOOL_CALL;
  }
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}
