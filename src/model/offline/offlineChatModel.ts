/**
 * The embedded offline model: a deterministic planner behind LangChain's chat-model
 * interface. It reads the catalog, turns common question forms into real tool calls through
 * the same agent loop as a hosted model, and writes the answer from the tool results.
 */
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Catalog } from '../../catalog/catalog.ts';
import { textOf } from '../../shared/messageText.ts';
import { nextStep, type CompletedCall } from './planner.ts';
import { dataQualityKinds, parseQuestion, type ParsedQuestion } from './questionParser.ts';

type ToolDefinitionLike = { type?: string; function?: { name: string }; name?: string };

export interface OfflineChatModelOptions extends BaseChatModelParams {
  catalog: Catalog;
  /** Names of the tools bound with bindTools; the planner only calls these. */
  toolNames?: string[];
}

/** A chat model that needs no network: answers the question forms described in the README. */
export class OfflineChatModel extends BaseChatModel {
  static readonly modelName = 'offline-planner';
  private readonly catalog: Catalog;
  private readonly toolNames: string[];

  constructor(options: OfflineChatModelOptions) {
    super(options);
    this.catalog = options.catalog;
    this.toolNames = options.toolNames ?? [];
  }

  _llmType(): string {
    return OfflineChatModel.modelName;
  }

  /** Returns a model that may call the given tools (OpenAI function format or named tools). */
  override bindTools(tools: ToolDefinitionLike[]): OfflineChatModel {
    const names = tools.map((tool) => tool.function?.name ?? tool.name).filter((name): name is string => typeof name === 'string');
    return new OfflineChatModel({ catalog: this.catalog, toolNames: names });
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.reply(messages);
    const text = typeof message.content === 'string' ? message.content : '';
    return { generations: [{ text, message }] };
  }

  /** Streams the same reply: tool calls in one chunk, answer text a few words at a time. */
  override async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions']): AsyncGenerator<ChatGenerationChunk> {
    const message = this.reply(messages);
    if (message.tool_calls?.length) {
      const chunk = new AIMessageChunk({
        content: '',
        tool_call_chunks: message.tool_calls.map((call, index) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args), index, type: 'tool_call_chunk' as const })),
        usage_metadata: message.usage_metadata,
      });
      yield new ChatGenerationChunk({ text: '', message: chunk });
      return;
    }
    const text = typeof message.content === 'string' ? message.content : '';
    const pieces = text.match(/\S+\s*|\s+/g) ?? [''];
    for (let index = 0; index < pieces.length; index += 1) {
      if (options.signal?.aborted) return;
      const last = index === pieces.length - 1;
      yield new ChatGenerationChunk({ text: pieces[index]!, message: new AIMessageChunk({ content: pieces[index]!, ...(last ? { usage_metadata: message.usage_metadata } : {}) }) });
    }
  }

  private reply(messages: BaseMessage[]): AIMessage {
    const humanIndexes = messages.flatMap((m, index) => (HumanMessage.isInstance(m) ? [index] : []));
    const current = humanIndexes.at(-1);
    if (current === undefined) return this.answer('Ask me a question about the data.', messages);
    const question = this.understand(messages, humanIndexes);
    const done = completedCalls(messages.slice(current + 1));
    const step = nextStep(question, done, this.catalog);
    if ('answer' in step) return this.answer(step.answer, messages);
    const missing = step.toolCalls.find((call) => !this.toolNames.includes(call.name));
    if (missing) return this.answer(`I would need the tool '${missing.name}', which is not available.`, messages);
    const turn = messages.length;
    return new AIMessage({
      content: '',
      tool_calls: step.toolCalls.map((call, index) => ({ id: `call_offline_${turn}_${index}`, name: call.name, args: call.args, type: 'tool_call' as const })),
      usage_metadata: estimateUsage(messages, JSON.stringify(step.toolCalls)),
    });
  }

  /**
   * Parses the latest question; a follow-up that names no source ("and for company 2000?")
   * inherits the previous question's intent, with its own filters taking precedence.
   */
  private understand(messages: BaseMessage[], humanIndexes: number[]): ParsedQuestion {
    const current = parseQuestion(textOf(messages[humanIndexes.at(-1)!]!.content), this.catalog);
    const previousIndex = humanIndexes.at(-2);
    if (current.sources.length > 0 || current.kind === 'list_sources' || previousIndex === undefined) return current;
    const previous = parseQuestion(textOf(messages[previousIndex]!.content), this.catalog);
    if (previous.kind === 'unsupported' || previous.kind === 'list_sources') return current;
    // A new check or comparison of "the same data": keep its kind, take the previous source and scope.
    if (current.kind === 'compare_versions' || dataQualityKinds.includes(current.kind)) return { ...current, sources: previous.sources.slice(0, 1), filters: { ...previous.filters, ...current.filters } };
    return {
      ...previous,
      filters: { ...previous.filters, ...current.filters },
      dimensions: current.dimensions.length ? current.dimensions : previous.dimensions,
      measure: current.measure ?? previous.measure,
      why: current.why || previous.why,
      blankDimensions: current.blankDimensions.length ? current.blankDimensions : previous.blankDimensions,
    };
  }

  private answer(text: string, messages: BaseMessage[]): AIMessage {
    return new AIMessage({ content: text, usage_metadata: estimateUsage(messages, text) });
  }
}

/** Pairs this turn's tool calls with their results. */
function completedCalls(turn: BaseMessage[]): CompletedCall[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const done: CompletedCall[] = [];
  for (const message of turn) {
    if (AIMessage.isInstance(message)) for (const call of message.tool_calls ?? []) calls.set(call.id ?? '', { name: call.name, args: call.args });
    if (ToolMessage.isInstance(message)) {
      const call = calls.get(message.tool_call_id);
      if (!call) continue;
      let result: unknown;
      try {
        result = JSON.parse(textOf(message.content));
      } catch {
        result = { error: { code: 'malformed_result', message: 'The tool result was not JSON.' } };
      }
      done.push({ ...call, result });
    }
  }
  return done;
}

/** Rough token counts (4 characters per token), so usage is reported for offline runs too. */
function estimateUsage(messages: BaseMessage[], output: string) {
  const input_tokens = Math.ceil(messages.reduce((sum, m) => sum + textOf(m.content).length, 0) / 4);
  const output_tokens = Math.ceil(output.length / 4);
  return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens };
}
