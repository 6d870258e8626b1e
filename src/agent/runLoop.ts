/**
 * The agent loop: call the model, run the tools it asks for, feed the results back, until
 * it answers or the per-question budget of model calls is spent. The messages it returns
 * always form a valid conversation to continue from.
 */
import { answerFigures, repairRequest, unverifiedTexts } from './answerFigures.ts';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { BoundChatModel, ChatModelWithTools } from '../model/chatModel.ts';
import { toModelProviderError } from '../model/providerErrors.ts';
import type { ToolContext } from '../skills/api.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import { textOf } from '../shared/messageText.ts';
import { MAX_MODEL_CALLS_PER_QUESTION } from './constants.ts';
import { CallFit, type PromptParts } from './promptBudget.ts';
import { allTools, boundTools, type BoundTools } from './toolBinding.ts';
import type { AgentEventListener } from './events.ts';
import { hasToolCalls, reachedModelCallLimit } from './stopConditions.ts';
import { summariseFindings, summariseUnfinishedRun } from './unfinishedRun.ts';
import { executeToolCalls } from './toolExecution.ts';
import type { AnswerFigure, CallUsage, StopReason, ToolCallRecord, Usage } from '../sessions/storedTurn.ts';
import type { TurnOutcome } from '../sessions/sessionRecords.ts';
import { normaliseAssistantMessage, prepareMessages, questionMessage } from './turnPreparation.ts';
import type { RunHooks } from './hooks.ts';

/** Re-exported for callers that used to find it here; it is defined in src/model. */
export type { ChatModelWithTools } from '../model/chatModel.ts';

/** A stored turn's parts are declared by the sessions layer, which keeps them; the agent produces them. */
export type { CallUsage, StopReason, Usage };

/** A turn's outcome as the sessions layer stores it (its messages are appended to the session). */
export interface AgentRunResult extends TurnOutcome {
  /** Every figure the answer states, with the tool result it came from or `unverified` (answerFigures.ts). */
  figures: AnswerFigure[];
  /** The answer the model wrote first, when a repair turn replaced it, and its unverified figures. */
  replaced?: { answer: string; unverified: string[] };
}

export interface RunAgentOptions {
  model: ChatModelWithTools;
  registry: SkillRegistry;
  systemPrompt: string;
  history: readonly BaseMessage[];
  /** Stored turns older than `history` that were not read (counted in the history's summary note). */
  omittedTurns?: number;
  question: string;
  /** BCP 47 locale of the reader, kept on the question message (the offline model writes numbers in it). */
  locale?: string;
  toolContext: ToolContext;
  signal?: AbortSignal;
  maxModelCalls?: number;
  /** When given, the model is streamed and every token and tool call is reported as it happens. */
  onEvent?: AgentEventListener;
  /** Observers of the run (metrics, trace): see hooks.ts. */
  hooks?: RunHooks;
  /**
   * Figures of the final answer no tool result backs: `repair` asks the model once to correct
   * them (within the model-call cap), `flag` only lists them as unverified, `off` lists no
   * figures at all. Default `flag`.
   */
  answerCheck?: 'repair' | 'flag' | 'off';
}

/**
 * Answers one question; `hooks.onTurnEnd` hears how it ended, answered or failed.
 * @throws ModelProviderError when the model cannot be reached or fails after its retries.
 * @example
 * const run = await runAgent({ model, registry, systemPrompt, history: [], question: 'Total FI for 1000?', toolContext, hooks });
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRunResult> {
  const hooks = options.hooks ?? {};
  try {
    const result = await answerQuestion(options, hooks);
    const unverified = result.figures.filter((figure) => figure.receipt.kind === 'unverified').length;
    if (unverified) hooks.onUnverifiedFigures?.({ count: unverified });
    hooks.onTurnEnd?.({ finished: result.finished, stopReason: result.stopReason, iterations: result.iterations });
    return result;
  } catch (error) {
    hooks.onTurnEnd?.({ finished: false, stopReason: 'error', iterations: progressOf(error)?.iterations ?? 0, error });
    throw error;
  }
}

async function answerQuestion(options: RunAgentOptions, hooks: RunHooks): Promise<AgentRunResult> {
  const { model, registry, history, toolContext, signal } = options;
  const maxModelCalls = options.maxModelCalls ?? MAX_MODEL_CALLS_PER_QUESTION;
  const turn: BaseMessage[] = [questionMessage(options.question, options.locale)];
  const toolCalls: ToolCallRecord[] = [];
  // A model that can rebind gets the tools the conversation uses; one with fixed tools has them all.
  const everyTool = model.withTools ? undefined : allTools(registry);
  const toolsFor = (messages: readonly BaseMessage[]): BoundTools => everyTool ?? boundTools(messages, registry);
  const parts: PromptParts = { basePrompt: options.systemPrompt, history, omittedTurns: options.omittedTurns ?? 0, tools: registry };
  const usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0, prompt_tokens: 0, calls: [], tool_definition_tokens: 0, tool_definition_share: 0 };
  // The stored history stays complete; the model gets it within the budget, fitted once so the prompt stays the same call to call.
  // What the next call binds; it changes only when an assistant message loads a skill or calls a tool.
  let tools = toolsFor([...history, ...turn]);
  const fit = new CallFit(parts, model.contextTokens, turn, tools.tokens);
  const { opening } = fit;
  usage.prompt_tokens = opening.promptTokens;
  if (opening.droppedTurns || opening.summarisedToolResults) {
    toolContext.logger.info({ dropped_turns: opening.droppedTurns, summarised_tool_results: opening.summarisedToolResults, prompt_tokens: usage.prompt_tokens }, 'history fitted to the token budget');
  }
  let iterations = 0;
  // An answer sent back once for figures no tool result backs: where it sits in the turn, and what it said.
  let repair: { at: number; answer: string; unverified: string[] } | undefined;
  // The rejected answer and the request to repair it are not kept in the stored conversation.
  const withoutRepair = () => (repair ? [...turn.slice(0, repair.at), ...turn.slice(repair.at + 2)] : [...turn]);
  const replaced = () => (repair ? { replaced: { answer: repair.answer, unverified: repair.unverified } } : {});
  // Read once per final answer: the figures returned are the ones the repair decision saw.
  const figuresOf = (answer: string) => (options.answerCheck === 'off' ? [] : answerFigures(answer, toolCalls, history, options.locale));

  while (!reachedModelCallLimit(iterations, maxModelCalls)) {
    let fitted: ReturnType<CallFit['next']>;
    try {
      fitted = fit.next(turn, tools.tokens);
    } catch (error) {
      // Not even this turn fits the window: no model call is made; the turn so far is kept.
      throw withProgress(error as Error, { messages: withoutRepair(), toolCalls: [...toolCalls], usage: { ...usage }, iterations });
    }
    const { prompt } = fitted;
    const call: CallUsage = { input_tokens: 0, prompt_tokens: fitted.tokens, tool_definition_tokens: tools.tokens, tools: tools.definitions.length };
    iterations += 1;
    const started = performance.now();
    hooks.onModelStart?.({ iteration: iterations });
    let reply: AIMessage;
    try {
      const messages = prepareMessages(prompt.systemPrompt, prompt.context, turn);
      const bound = model.withTools ? model.withTools(tools.definitions) : model;
      reply = options.onEvent ? await streamReply(bound, messages, signal, options.onEvent) : await bound.invoke(messages, { signal });
    } catch (error) {
      const failure = toModelProviderError(error, signal);
      hooks.onModelError?.({ iteration: iterations, durationMs: performance.now() - started, error: failure });
      throw withProgress(failure, { messages: withoutRepair(), toolCalls: [...toolCalls], usage: { ...usage }, iterations });
    }
    addUsage(usage, reply, call);
    const { message, calls } = normaliseAssistantMessage(reply);
    hooks.onModelEnd?.({ iteration: iterations, durationMs: performance.now() - started, reply, toolCalls: calls.map((c) => c.name), promptTokens: call.prompt_tokens, toolDefinitionTokens: call.tool_definition_tokens });
    toolContext.logger.info(
      { iteration: iterations, duration_ms: Math.round(performance.now() - started), tool_calls: calls.map((c) => c.name), prompt_tokens: call.prompt_tokens, tool_definition_tokens: call.tool_definition_tokens },
      'model call',
    );
    turn.push(message);
    if (!hasToolCalls(reply)) {
      // Some local models end a turn with no text at all; the user still gets the findings.
      const written = textOf(message.content).trim();
      const answer = written || summariseFindings(toolCalls, 'The model finished without writing an answer.', registry);
      if (!written) options.onEvent?.({ type: 'token', text: answer });
      // Checked before it is shown: one turn to correct figures no tool result backs.
      const figures = figuresOf(answer);
      const unverified = options.answerCheck === 'repair' && !repair && written && !reachedModelCallLimit(iterations, maxModelCalls) ? unverifiedTexts(figures) : [];
      if (unverified.length) {
        repair = { at: turn.length - 1, answer, unverified };
        hooks.onAnswerRepair?.({ unverified: unverified.length });
        options.onEvent?.({ type: 'answer_replaced', answer, unverified });
        turn.push(repairRequest(unverified));
        continue;
      }
      return { answer, finished: true, stopReason: 'completed', iterations, toolCalls, usage, messages: withoutRepair(), figures, ...replaced() };
    }
    // The results may take what the window leaves for the next call (its definitions included).
    tools = toolsFor([...history, ...turn]);
    const executed = await executeToolCalls(calls, registry, { ...toolContext, signal }, options.onEvent, hooks, fit.toolResultChars(turn, tools.tokens, calls.length));
    turn.push(...executed.messages);
    toolCalls.push(...executed.records);
  }

  // Out of budget: every tool call is answered; close the turn with an assistant message so the next turn starts cleanly.
  const answer = summariseUnfinishedRun(toolCalls, maxModelCalls, registry);
  options.onEvent?.({ type: 'token', text: answer });
  turn.push(new AIMessage(answer));
  return { answer, finished: false, stopReason: 'max_iterations', iterations, toolCalls, usage, messages: withoutRepair(), figures: figuresOf(answer), ...replaced() };
}

/**
 * Streams one model reply, reporting text as it arrives, and returns the whole message.
 * Tool-call argument fragments are joined by LangChain; arguments it could only "repair" into
 * something invalid fail validation later as a structured tool error.
 */
async function streamReply(model: BoundChatModel, messages: BaseMessage[], signal: AbortSignal | undefined, onEvent: AgentEventListener): Promise<AIMessage> {
  let whole: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(messages, { signal })) {
    const piece = chunk as unknown as AIMessageChunk;
    whole = whole ? whole.concat(piece) : piece;
    const text = textOf(piece.content);
    if (text) onEvent({ type: 'token', text });
  }
  if (!whole) throw new Error('the model stream ended without a message');
  return new AIMessage({
    content: whole.content,
    id: whole.id,
    tool_calls: whole.tool_calls,
    invalid_tool_calls: whole.invalid_tool_calls,
    usage_metadata: whole.usage_metadata,
    response_metadata: whole.response_metadata,
  });
}

function addUsage(usage: Usage, message: AIMessage, call: CallUsage): void {
  const metadata = message.usage_metadata;
  call.input_tokens = metadata?.input_tokens ?? 0;
  usage.calls = [...(usage.calls ?? []), call];
  const definitions = (usage.tool_definition_tokens ?? 0) + call.tool_definition_tokens;
  const prompts = usage.calls.reduce((sum, each) => sum + each.prompt_tokens, 0);
  usage.tool_definition_tokens = definitions;
  usage.tool_definition_share = prompts > 0 ? Math.round((definitions / prompts) * 100) / 100 : 0;
  if (!metadata) return;
  usage.input_tokens += metadata.input_tokens ?? 0;
  usage.output_tokens += metadata.output_tokens ?? 0;
  usage.total_tokens += metadata.total_tokens ?? (metadata.input_tokens ?? 0) + (metadata.output_tokens ?? 0);
}

/** What a question had achieved when the model provider failed: kept so the turn is not lost. */
export interface TurnProgress {
  /** The question, and every assistant message with its answered tool calls so far. */
  messages: BaseMessage[];
  toolCalls: ToolCallRecord[];
  usage: Usage;
  iterations: number;
}

const progressKey = Symbol.for('analyst.turn-progress');

function withProgress<E extends object>(error: E, progress: TurnProgress): E {
  Object.defineProperty(error, progressKey, { value: progress });
  return error;
}

/** The progress a failed run attached to its error, if any. */
export function progressOf(error: unknown): TurnProgress | undefined {
  return typeof error === 'object' && error !== null ? (error as { [progressKey]?: TurnProgress })[progressKey] : undefined;
}
