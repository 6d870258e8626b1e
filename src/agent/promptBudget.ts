/**
 * Fits every model call into the model's context window (MODEL_CONTEXT_TOKENS): the system
 * prompt, the bound tool definitions, the history and this turn are counted together, with
 * room kept for the reply. The history is fitted once when a question starts (so the system
 * prompt, which carries the note on earlier turns, stays the same call to call and prompt
 * caches keep working) and fitted again, tighter, only when a call would not fit otherwise. A
 * call that cannot fit even without history fails with a clear error instead of being cut by
 * the provider.
 */
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { ModelProviderError } from '../errors/index.ts';
import { textOf } from '../shared/messageText.ts';
import { DEFAULT_MODEL_CONTEXT_TOKENS, HISTORY_TOKEN_BUDGET, MAX_TOOL_RESULT_CHARS, RECENT_TURNS_KEPT, REPLY_TOKENS_RESERVED } from './constants.ts';
import { droppedTurnsNote, fitHistory, isHistorySummary } from './contextWindow.ts';
import { CHARS_PER_TOKEN, estimateTokens } from './tokenEstimate.ts';
import type { ToolSummaries } from './toolResultSummary.ts';
import { prepareMessages } from './turnPreparation.ts';

/** The history gets at most this share of what the window leaves once the fixed parts are counted; the turn's tool results get the rest. */
const HISTORY_SHARE_OF_ROOM = 0.5;
/** Below this many tokens of room the history is left out altogether. */
const MIN_HISTORY_TOKENS = 200;
/** A tool result is never cut below this many characters, however full the window. */
const MIN_TOOL_RESULT_CHARS = 2_000;

/** What one call sends besides the tool definitions: the system prompt (with the note on earlier turns) and the history. */
export interface FittedPrompt {
  systemPrompt: string;
  context: BaseMessage[];
  droppedTurns: number;
  summarisedToolResults: number;
}

/** The window of one question. */
export interface PromptBudget {
  /** The model's context window (MODEL_CONTEXT_TOKENS). */
  contextTokens: number;
  /** What the prompt may take: the window less the room kept for the reply. */
  promptTokens: number;
}

/**
 * The budget for a model's window.
 * @example
 * promptBudget(8_192) // { contextTokens: 8192, promptTokens: 7168 }
 */
export function promptBudget(contextTokens = DEFAULT_MODEL_CONTEXT_TOKENS): PromptBudget {
  const reserved = Math.min(REPLY_TOKENS_RESERVED, Math.floor(contextTokens / 8));
  return { contextTokens, promptTokens: contextTokens - reserved };
}

/** What the fitting reads: the question's base prompt, its stored history and the tools' summaries. */
export interface PromptParts {
  basePrompt: string;
  history: readonly BaseMessage[];
  omittedTurns: number;
  tools: ToolSummaries;
}

/**
 * The prompt a question starts with: the history within HISTORY_TOKEN_BUDGET and within half
 * of what the window leaves besides the system prompt, the definitions and the question.
 * @throws ModelProviderError (context_too_small) when the question alone does not fit.
 * @example
 * const prompt = fitQuestion(parts, [question], bound.tokens, promptBudget(model.contextTokens));
 */
export function fitQuestion(parts: PromptParts, turn: readonly BaseMessage[], definitionTokens: number, budget: PromptBudget): FittedPrompt {
  const fixed = estimateTokens(prepareMessages(parts.basePrompt, [], turn)) + definitionTokens;
  const room = budget.promptTokens - fixed;
  if (room < 0) throw tooLarge(fixed, budget);
  return fitWithin(parts, Math.min(HISTORY_TOKEN_BUDGET, Math.floor(room * HISTORY_SHARE_OF_ROOM)), RECENT_TURNS_KEPT);
}

/**
 * The prompt for the next call: `prompt` when the call fits, else the history fitted into what
 * is left (possibly none of it).
 * @throws ModelProviderError (context_too_small) when the call does not fit even without history.
 * @example
 * prompt = fitCall(parts, prompt, turn, bound.tokens, budget);
 */
export function fitCall(parts: PromptParts, prompt: FittedPrompt, turn: readonly BaseMessage[], definitionTokens: number, budget: PromptBudget): FittedPrompt {
  if (callTokens(prompt, turn, definitionTokens) <= budget.promptTokens) return prompt;
  const withoutHistory = estimateTokens(prepareMessages(parts.basePrompt, [], turn)) + definitionTokens;
  const room = budget.promptTokens - withoutHistory;
  if (room < 0) throw tooLarge(withoutHistory, budget);
  const refitted = fitWithin(parts, room, 0);
  return callTokens(refitted, turn, definitionTokens) <= budget.promptTokens ? refitted : fitWithin(parts, 0, 0);
}

/**
 * Estimated tokens of a call: its messages and its tool definitions.
 * @example
 * callTokens(prompt, turn, bound.tokens) // 1_234
 */
export function callTokens(prompt: FittedPrompt, turn: readonly BaseMessage[], definitionTokens: number): number {
  return estimateTokens(prepareMessages(prompt.systemPrompt, prompt.context, turn)) + definitionTokens;
}

/**
 * The most characters each of `calls` tool results may take so that the next call still fits
 * (never above MAX_TOOL_RESULT_CHARS nor below MIN_TOOL_RESULT_CHARS).
 * @example
 * maxToolResultChars(7_168 - callTokens(prompt, turn, next.tokens), 2) // 9_000
 */
export function maxToolResultChars(roomTokens: number, calls: number): number {
  const share = Math.floor((roomTokens * CHARS_PER_TOKEN) / Math.max(1, calls));
  return Math.max(MIN_TOOL_RESULT_CHARS, Math.min(MAX_TOOL_RESULT_CHARS, share));
}

/**
 * The one owner of fitting a question's model calls into the window: the run loop hands it the
 * turn so far and the tool definitions' tokens, and asks for the prompt of the next call and
 * the room its tool results may take; the history fitting (contextWindow.ts), the estimates
 * (tokenEstimate.ts) and the tool-result summaries (toolResultSummary.ts) are its helpers.
 * @example
 * const fit = new CallFit(parts, model.contextTokens, turn, bound.tokens); // history fitted once
 * fit.opening.promptTokens;                                // the question's prompt, estimated
 * const { prompt, tokens } = fit.next(turn, bound.tokens);  // before each model call
 * const chars = fit.toolResultChars(turn, next.tokens, calls.length);
 */
export class CallFit {
  readonly budget: PromptBudget;
  /** The prompt the question starts with (see fitQuestion); `promptTokens`: its estimate without the definitions. */
  readonly opening: FittedPrompt & { promptTokens: number };
  private current: FittedPrompt;

  /** @throws ModelProviderError (context_too_small) when the question alone does not fit. */
  constructor(
    private readonly parts: PromptParts,
    contextTokens: number | undefined,
    turn: readonly BaseMessage[],
    definitionTokens: number,
  ) {
    this.budget = promptBudget(contextTokens);
    this.current = fitQuestion(parts, turn, definitionTokens, this.budget);
    this.opening = { ...this.current, promptTokens: callTokens(this.current, turn, 0) };
  }

  /** The prompt of the next call (see fitCall) and its estimated tokens, definitions included. */
  next(turn: readonly BaseMessage[], definitionTokens: number): { prompt: FittedPrompt; tokens: number } {
    this.current = fitCall(this.parts, this.current, turn, definitionTokens, this.budget);
    return { prompt: this.current, tokens: callTokens(this.current, turn, definitionTokens) };
  }

  /** The most characters each of `calls` tool results may take so the next call (with `definitionTokens`) still fits. */
  toolResultChars(turn: readonly BaseMessage[], definitionTokens: number, calls: number): number {
    return maxToolResultChars(this.budget.promptTokens - callTokens(this.current, turn, definitionTokens), calls);
  }
}

function fitWithin(parts: PromptParts, maxTokens: number, keepRecentTurns: number): FittedPrompt {
  if (parts.history.length === 0 && parts.omittedTurns === 0) return { systemPrompt: parts.basePrompt, context: [], droppedTurns: 0, summarisedToolResults: 0 };
  if (maxTokens < MIN_HISTORY_TOKENS) {
    // No room for any of the history: one line says earlier turns exist.
    const turns = parts.history.filter((message) => HumanMessage.isInstance(message)).length + parts.omittedTurns;
    return { systemPrompt: `${parts.basePrompt}\n\n${droppedTurnsNote(turns)}`, context: [], droppedTurns: turns, summarisedToolResults: 0 };
  }
  const fitted = fitHistory(parts.history, { maxTokens, keepRecentTurns }, parts.omittedTurns, parts.tools);
  const note = fitted.messages[0] && isHistorySummary(fitted.messages[0]) ? fitted.messages[0] : undefined;
  // One system message suits every chat template: the note about earlier turns joins the prompt.
  return {
    systemPrompt: note ? `${parts.basePrompt}\n\n${textOf(note.content)}` : parts.basePrompt,
    context: note ? fitted.messages.slice(1) : fitted.messages,
    droppedTurns: fitted.droppedTurns,
    summarisedToolResults: fitted.summarisedToolResults,
  };
}

function tooLarge(needed: number, budget: PromptBudget): ModelProviderError {
  return new ModelProviderError(
    'context_too_small',
    `This question does not fit the model's context window: the next model call needs about ${needed} tokens (system prompt, tool definitions, the question and its tool results so far), but a window of ${budget.contextTokens} tokens (MODEL_CONTEXT_TOKENS) leaves ${budget.promptTokens} for the prompt. Ask a narrower question, or use a model with a larger context and raise MODEL_CONTEXT_TOKENS.`,
  );
}
