/**
 * The embedded offline model: a deterministic reader of questions behind LangChain's
 * chat-model interface. It reads each question against the catalog and the skills' question
 * forms (understand.ts), carries the conversation's slots from turn to turn (conversation.ts),
 * lets the best-fitting form plan real tool calls through the same agent loop as a hosted
 * model, and words the answer from the results. It never answers a broader question than
 * was asked: words it cannot place, periods it cannot date and constraints a source cannot
 * take are asked back. It knows no tool by name; the forms do.
 */
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Catalog } from '../../catalog/catalog.ts';
import { textOf } from '../../shared/messageText.ts';
import type { CompletedCall, QuestionForm, Understanding } from '../../skills/questionForms.ts';
import { OFFLINE_MODEL_NAME } from './modelName.ts';
import { fiscalYearOf, previousState, remembered, resolve, STATE_KEY, stateOf, type ConversationState } from './conversation.ts';
import { actionReply, capabilitiesReply, clarificationReply, describeUnderstanding, notHeldReply, relativePeriodReply, tooLongReply } from './replies.ts';
import { MAX_QUESTION_CHARACTERS } from './tokens.ts';
import { understand, type Reading } from './understand.ts';
import { buildVocabulary, type Vocabulary } from './vocabulary.ts';

type ToolDefinitionLike = { type?: string; function?: { name: string }; name?: string };

export interface OfflineChatModelOptions extends BaseChatModelParams {
  catalog: Catalog;
  /** The skills' question forms; the model answers only these. */
  forms?: readonly QuestionForm[];
  /** Names of the tools bound with bindTools; the forms only call these. */
  toolNames?: string[];
  /** The vocabulary of `catalog` and `forms`, built on first use and shared (bindTools passes it on). */
  vocabulary?: () => Vocabulary;
}

/** Chooses, in a turn, the form and the question it answers. */
interface TurnPlan {
  question: Understanding;
  form: QuestionForm | undefined;
  reply?: string;
  corrections: Reading['corrections'];
  ignored: Reading['ignored'];
  /** What the conversation keeps of this turn, when it is not the question itself (a one-off conversion). */
  remember?: Understanding;
}

/** A chat model that needs no network: answers the question forms the skills declare. */
export class OfflineChatModel extends BaseChatModel {
  static readonly modelName = OFFLINE_MODEL_NAME;
  private readonly catalog: Catalog;
  private readonly forms: readonly QuestionForm[];
  private readonly toolNames: string[];
  private readonly vocabularyOf: () => Vocabulary;

  constructor(options: OfflineChatModelOptions) {
    super(options);
    this.catalog = options.catalog;
    this.forms = options.forms ?? [];
    this.toolNames = options.toolNames ?? [];
    // Built on the first question rather than at every start (a twentieth of one); bound copies share it.
    let built: Vocabulary | undefined;
    this.vocabularyOf = options.vocabulary ?? (() => (built ??= buildVocabulary(options.catalog, options.forms ?? [])));
  }

  private get vocabulary(): Vocabulary {
    return this.vocabularyOf();
  }

  _llmType(): string {
    return OfflineChatModel.modelName;
  }

  /** Returns a model that may call the given tools (OpenAI function format or named tools). */
  override bindTools(tools: ToolDefinitionLike[]): OfflineChatModel {
    const names = tools.map((tool) => tool.function?.name ?? tool.name).filter((name): name is string => typeof name === 'string');
    return new OfflineChatModel({ catalog: this.catalog, forms: this.forms, toolNames: names, vocabulary: this.vocabularyOf });
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
      const extra = last ? { usage_metadata: message.usage_metadata, response_metadata: message.response_metadata } : {};
      yield new ChatGenerationChunk({ text: pieces[index]!, message: new AIMessageChunk({ content: pieces[index]!, ...extra }) });
    }
  }

  private reply(messages: BaseMessage[]): AIMessage {
    const humanIndexes = messages.flatMap((m, index) => (HumanMessage.isInstance(m) ? [index] : []));
    const current = humanIndexes.at(-1);
    if (current === undefined) return this.answer('Ask me a question about the data.', messages);
    const human = messages[current]!;
    const locale = typeof human.additional_kwargs?.locale === 'string' ? human.additional_kwargs.locale : 'en-US';
    const previous = previousState(messages, current);
    const turn = this.plan(textOf(human.content), previous);
    if (turn.reply !== undefined || !turn.form) return this.answer(turn.reply ?? capabilitiesReply(this.forms, this.catalog), messages, previous);
    const done = completedCalls(messages.slice(current + 1));
    const step = turn.form.plan(turn.question, done, { catalog: this.catalog, locale, tools: this.toolNames });
    if ('clarify' in step) return this.answer(step.clarify, messages, previous);
    if ('answer' in step) return this.answer(withReading(step.answer, turn), messages, stateOf(turn.remember ?? turn.question, turn.form.name));
    const missing = step.toolCalls.find((call) => !this.toolNames.includes(call.name));
    if (missing) return this.answer(`I would need the tool '${missing.name}', which is not available.`, messages, previous);
    return new AIMessage({
      content: '',
      tool_calls: step.toolCalls.map((call, index) => ({ id: `call_offline_${messages.length}_${index}`, name: call.name, args: call.args, type: 'tool_call' as const })),
      usage_metadata: estimateUsage(messages, JSON.stringify(step.toolCalls)),
    });
  }

  /** Reads the question, resolves it against the conversation, and picks the form, or a reply of the core's own. */
  private plan(text: string, previous: ConversationState | undefined): TurnPlan {
    const reading = understand(text, this.vocabulary);
    const none = { question: reading, form: undefined, corrections: reading.corrections, ignored: reading.ignored };
    if (reading.tooLong) return { ...none, reply: tooLongReply(MAX_QUESTION_CHARACTERS) };
    if (reading.truncated) return { ...none, reply: `Your question seems to stop in the middle ("…${reading.text.trim().split(/\s+/).slice(-4).join(' ')}"). Could you send all of it?` };
    if (reading.action) return { ...none, reply: actionReply(reading.action) };
    if (reading.notHeld.length) return { ...none, reply: notHeldReply(reading.notHeld) };
    const asksNothing = reading.sources.length === 0 && Object.keys(reading.filters).length === 0 && reading.measure === undefined && reading.unknown.length === 0;
    const kinds = [...reading.intents].filter((intent) => !['thanks', 'capabilities', 'why'].includes(intent));
    if (asksNothing && kinds.length === 0 && (reading.intents.has('thanks') || reading.intents.has('capabilities'))) {
      const opening = reading.intents.has('thanks') && !reading.intents.has('capabilities') ? "You're welcome. If you have another question, these are the kinds I answer:" : undefined;
      return { ...none, reply: capabilitiesReply(this.forms, this.catalog, opening) };
    }
    const question = resolve(reading, previous);
    // "How did we do in Q1?" where the data holds two fiscal years and nothing before dates it.
    if (reading.undated.length && this.vocabulary.years.length > 1 && fiscalYearOf(previous?.question.filters.period) === undefined) {
      const stops = reading.undated.map((phrase) => ({ phrase, reason: `'${phrase}' names no year, and the data holds ${this.vocabulary.years.join(' and ')}: which year do you mean?` }));
      return { ...none, question, reply: clarificationReply({ ...question, filters: withoutPeriod(question.filters) }, this.vocabulary, undefined, [...reading.stops, ...stops]) };
    }
    // "and for 2000?" with nothing before it: for 2000 of what?
    // "break that down per profit centre" as the first question: that is nothing yet.
    const pointsAtNothing = reading.refersBack && reading.sources.length === 0 && Object.keys(reading.filters).length === 0;
    if (!previous && ((reading.elliptical && reading.sources.length === 0 && !reading.complete) || pointsAtNothing)) {
      return { ...none, reply: `What should I look at${Object.keys(reading.filters).length ? ` for ${describeUnderstanding(reading, this.vocabulary.calendar)}` : ''}? This conversation has no earlier question to continue; ask the whole question, e.g. "total amount in fi_reporting for company 2000 in Q2 2024".` };
    }
    const ranked = this.forms
      .map((form) => ({ form, score: form.score(question, this.catalog) }))
      .filter((entry) => entry.score > 0)
      .sort((x, y) => y.score - x.score);
    const form = ranked[0]?.form;
    if (!form) {
      const understoodNothing = question.sources.length === 0 && Object.keys(question.filters).length === 0 && question.measure === undefined;
      if (reading.unknown.length && !understoodNothing) return { ...none, question, reply: clarificationReply(question, this.vocabulary, undefined, reading.stops) };
      if (reading.stops.length) return { ...none, question, reply: clarificationReply(question, this.vocabulary, undefined, reading.stops) };
      const words = [...new Set(reading.unknown)].slice(0, 4).map((w) => `'${w}'`).join(', ');
      return { ...none, question, reply: capabilitiesReply(this.forms, this.catalog, `I'm the built-in offline model and I'm not sure what you are asking${words ? ` (I could not place ${words})` : ''}. These are the kinds of questions I answer:`) };
    }
    if (!form.freeText && reading.unknown.length) return { ...none, question, reply: clarificationReply(question, this.vocabulary, undefined, reading.stops) };
    // "excluding intercompany" asked of a form that cannot leave it out: never a figure with it in.
    if (question.excluded && !form.readsExclusions && !form.freeText) {
      const left = Object.values(question.excluded).flat().join(', ');
      return { ...none, question, reply: clarificationReply(question, this.vocabulary, undefined, [{ phrase: left, reason: `leaving out ${left} is something I can do for a total only ("… excluding intercompany"), not for this kind of question` }]) };
    }
    if (!form.freeText && !form.readsRelativePeriods && reading.relativePeriods.length) return { ...none, question, reply: relativePeriodReply(question, reading.relativePeriods, this.vocabulary.calendar) };
    return { question, form, corrections: reading.corrections, ignored: reading.ignored, remember: remembered(reading, question, previous) };
  }

  private answer(text: string, messages: BaseMessage[], state?: ConversationState): AIMessage {
    return new AIMessage({ content: text, usage_metadata: estimateUsage(messages, text), response_metadata: state ? { [STATE_KEY]: state } : {} });
  }
}

function withoutPeriod(filters: Understanding['filters']): Understanding['filters'] {
  const { period: _period, ...rest } = filters;
  return rest;
}

/** Says how misspelt words were read and which name-like words were not used, so a reader can check it. */
function withReading(answer: string, turn: Pick<TurnPlan, 'corrections' | 'ignored'>): string {
  const notes: string[] = [];
  if (turn.corrections.length) notes.push(`(I read ${turn.corrections.map((c) => `'${c.from}' as '${c.to}'`).join(', ')}.)`);
  if (turn.ignored.length) notes.push(`(I did not use ${[...new Set(turn.ignored)].map((word) => `'${word}'`).join(', ')}: no source, company or account of the catalog has that name.)`);
  return notes.length ? `${notes.join('\n')}\n${answer}` : answer;
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
