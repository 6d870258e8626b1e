/**
 * Keeps what the model is sent within a token budget however long the conversation gets,
 * while the stored history stays complete. When the history is over budget, tool results of
 * older turns are replaced by compact summaries; if that is not enough, the oldest whole
 * turns are dropped and one note at the start summarises them. The recent turns always go
 * verbatim, and every assistant tool call keeps exactly its tool results right after it.
 *
 * Tokens are estimated, not counted: characters / 3.2 plus a per-message overhead. Measured
 * against o200k_base (gpt-4o, gpt-4o-mini) on this service's real tool results, JSON rows
 * run at 3.35–3.6 characters per token, prose and catalog text at 3.3–4.1, so the estimate
 * errs on the safe side (0–28% high) and never under-counts a realistic tool result.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { formatAmount } from '../shared/format.ts';

export interface ContextBudget {
  /** Most tokens the history may take (estimated with {@link estimateTokens}). */
  maxTokens: number;
  /** Turns always kept verbatim (most recent), even when they alone exceed maxTokens. */
  keepRecentTurns: number;
}

export const DEFAULT_CONTEXT_BUDGET: ContextBudget = Object.freeze({ maxTokens: 12_000, keepRecentTurns: 2 });

export interface FittedHistory {
  messages: BaseMessage[];
  estimatedTokens: number;
  /** Tool results replaced by a summary. */
  summarisedToolResults: number;
  /** Oldest turns left out and described in the summary note instead. */
  droppedTurns: number;
}

/** Characters per token of the estimate; see the module comment for how it was chosen. */
const CHARS_PER_TOKEN = 3.2;
/** Role, separators and framing of each message in the chat format. */
const TOKENS_PER_MESSAGE = 4;
/** Id, type and function framing of each tool call, on top of its name and arguments. */
const TOKENS_PER_TOOL_CALL = 8;
/** The reply's priming tokens, counted once per request. */
const TOKENS_PER_REQUEST = 3;

/** Longest summary of one tool result, in characters. */
const MAX_TOOL_SUMMARY_CHARS = 300;
/** Tool results this short are kept as they are: a summary would save next to nothing. */
const KEEP_TOOL_RESULT_CHARS = 400;
/** Questions and answers of dropped turns are cut to this many characters in the note. */
const MAX_NOTE_QUESTION_CHARS = 200;
const MAX_NOTE_ANSWER_CHARS = 200;
/** The note takes at most this many characters, and at most this share of the budget. */
const MAX_NOTE_CHARS = 3_000;
const MAX_NOTE_BUDGET_SHARE = 0.25;
/** Even in a tiny budget, the latest dropped turn gets this many characters. */
const MIN_NOTE_LINE_CHARS = 80;

const SUMMARY_NOTE_ID = 'context-window-summary';
const SUMMARY_NOTE_TITLE = 'Summary of earlier conversation';

/** Rough token estimate of messages as a model would see them (content + tool call arguments + per-message overhead). */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  if (messages.length === 0) return 0;
  return TOKENS_PER_REQUEST + messages.reduce((sum, message) => sum + messageTokens(message), 0);
}

/** True for the note {@link fitHistory} puts in place of the turns it drops. */
export function isHistorySummary(message: BaseMessage): boolean {
  return SystemMessage.isInstance(message) && message.id === SUMMARY_NOTE_ID;
}

/**
 * Returns the history to send: never mutates its input. A "turn" starts at a HumanMessage and runs to the next one
 * (leading SystemMessages are kept as they are and never counted as a turn).
 * A history within budget is returned unchanged. Otherwise:
 * 1. Tool results of turns older than the last `keepRecentTurns` are replaced by a compact JSON summary
 *    (same tool_call_id and name, so the assistant's tool calls stay answered).
 * 2. If still over budget, the oldest whole turns are dropped and replaced by ONE SystemMessage note at the start
 *    ("Summary of earlier conversation: Q: … → A: …" for each dropped turn), never splitting an assistant tool-call
 *    message from its tool results.
 * 3. The result is valid for the OpenAI chat format: every AIMessage with tool calls is followed by exactly its
 *    ToolMessages (an input that breaks this is repaired: stray tool results are left out, a missing one is stated).
 * When the recent turns alone exceed the budget they are still sent verbatim: `estimatedTokens` then exceeds `maxTokens`.
 */
export function fitHistory(history: readonly BaseMessage[], budget: ContextBudget = DEFAULT_CONTEXT_BUDGET): FittedHistory {
  checkBudget(budget);
  const paired = pairToolResults(history);
  const total = estimateTokens(paired);
  if (total <= budget.maxTokens) return { messages: paired, estimatedTokens: total, summarisedToolResults: 0, droppedTurns: 0 };

  const { pinned, turns } = splitTurns(paired);
  const recentFrom = Math.max(0, turns.length - budget.keepRecentTurns);
  const older = turns.slice(0, recentFrom);
  const recent = turns.slice(recentFrom).flat();

  // Keep as many of the latest older turns (with summarised tool results) as fit besides the
  // recent turns and the note on the rest. Turns are summarised newest first and only while
  // they fit, so a long history costs no more than the turns that are sent.
  const tokensOf = (messages: readonly BaseMessage[]) => messages.reduce((sum, message) => sum + messageTokens(message), 0);
  const fixedTokens = TOKENS_PER_REQUEST + tokensOf(pinned) + tokensOf(recent);
  const noteChars = Math.min(MAX_NOTE_CHARS, Math.floor(budget.maxTokens * MAX_NOTE_BUDGET_SHARE * CHARS_PER_TOKEN));
  const noteLines = older.map(describeTurn);
  const noteFor = (dropped: number) => (dropped === 0 ? undefined : summaryNote(noteLines, dropped, noteChars));
  const kept: SummarisedTurn[] = [];
  let keptTokens = 0;
  let note = noteFor(older.length);
  while (kept.length < older.length) {
    const candidate = summariseToolResults(older[older.length - kept.length - 1]!);
    const candidateTokens = tokensOf(candidate.messages);
    const candidateNote = noteFor(older.length - kept.length - 1);
    if (fixedTokens + (candidateNote ? messageTokens(candidateNote) : 0) + keptTokens + candidateTokens > budget.maxTokens) break;
    kept.unshift(candidate);
    keptTokens += candidateTokens;
    note = candidateNote;
  }

  const messages = [...pinned, ...(note ? [note] : []), ...kept.flatMap((turn) => turn.messages), ...recent];
  return {
    messages,
    estimatedTokens: estimateTokens(messages),
    summarisedToolResults: kept.reduce((sum, turn) => sum + turn.summarised, 0),
    droppedTurns: older.length - kept.length,
  };
}

interface SummarisedTurn {
  messages: BaseMessage[];
  /** Tool results replaced by a summary. */
  summarised: number;
}

/** An older turn with its long tool results replaced by summaries. */
function summariseToolResults(turn: readonly BaseMessage[]): SummarisedTurn {
  // A tool result without a name is named after its call.
  const callNames = new Map(turn.flatMap((message) => (AIMessage.isInstance(message) ? wireToolCalls(message).map((call) => [call.id, call.name] as const) : [])));
  let summarised = 0;
  const messages = turn.map((message) => {
    const summary = ToolMessage.isInstance(message) ? summariseToolMessage(message, message.name || callNames.get(message.tool_call_id) || 'tool') : undefined;
    if (!summary) return message;
    summarised += 1;
    return summary;
  });
  return { messages, summarised };
}

function checkBudget(budget: ContextBudget): void {
  if (!(budget.maxTokens > 0) || !Number.isFinite(budget.maxTokens)) throw new RangeError(`maxTokens must be a positive number, got ${budget.maxTokens}.`);
  if (!Number.isInteger(budget.keepRecentTurns) || budget.keepRecentTurns < 0) {
    throw new RangeError(`keepRecentTurns must be a whole number of turns, 0 or more, got ${budget.keepRecentTurns}.`);
  }
}

// -------------------------------------------------------------------------------------------
// Token estimate

function messageTokens(message: BaseMessage): number {
  let chars = contentChars(message.content) + (message.name?.length ?? 0);
  let tokens = TOKENS_PER_MESSAGE;
  if (ToolMessage.isInstance(message)) chars += message.tool_call_id.length;
  if (AIMessage.isInstance(message)) {
    const calls = wireToolCalls(message);
    chars += calls.reduce((sum, call) => sum + call.id.length + call.name.length + call.arguments.length, 0);
    tokens += calls.length * TOKENS_PER_TOOL_CALL;
  }
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}

function contentChars(content: BaseMessage['content']): number {
  if (typeof content === 'string') return content.length;
  return contentParts(content).reduce((sum, part) => sum + (part.text ?? JSON.stringify(part.raw) ?? '').length, 0);
}

function textOf(content: BaseMessage['content']): string {
  if (typeof content === 'string') return content;
  return contentParts(content)
    .map((part) => part.text ?? '')
    .join('');
}

/** Content blocks, with the text of text blocks (strings are accepted too, whatever the types say). */
function contentParts(content: readonly unknown[]): { text?: string; raw: unknown }[] {
  return content.map((part) => {
    if (typeof part === 'string') return { text: part, raw: part };
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') return { text: part.text, raw: part };
    return { raw: part };
  });
}

interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The tool calls as the OpenAI request carries them: LangChain sends `tool_calls` when there
 * are any, else the raw `additional_kwargs.tool_calls`.
 */
function wireToolCalls(message: AIMessage): WireToolCall[] {
  if (message.tool_calls?.length) {
    return message.tool_calls.map((call) => ({ id: call.id ?? '', name: call.name, arguments: JSON.stringify(call.args) ?? '' }));
  }
  const raw: unknown = message.additional_kwargs?.tool_calls;
  if (!Array.isArray(raw)) return [];
  return raw.map((call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) => ({
    id: typeof call?.id === 'string' ? call.id : '',
    name: typeof call?.function?.name === 'string' ? call.function.name : '',
    arguments: typeof call?.function?.arguments === 'string' ? call.function.arguments : '',
  }));
}

// -------------------------------------------------------------------------------------------
// Pairing and turns

/**
 * Every assistant message with tool calls followed by exactly one result per call. A valid
 * history comes back as a copy holding the same messages; a broken one (a stray tool result, a call
 * without a result) is repaired so the provider accepts it.
 */
function pairToolResults(history: readonly BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  let index = 0;
  while (index < history.length) {
    const message = history[index]!;
    index += 1;
    if (ToolMessage.isInstance(message)) continue; // not right after its assistant message
    out.push(message);
    if (!AIMessage.isInstance(message)) continue;
    const calls = wireToolCalls(message);
    if (calls.length === 0) continue;
    const results = new Map<string, ToolMessage>();
    while (index < history.length && ToolMessage.isInstance(history[index])) {
      const result = history[index] as ToolMessage;
      if (calls.some((call) => call.id === result.tool_call_id) && !results.has(result.tool_call_id)) results.set(result.tool_call_id, result);
      index += 1;
    }
    for (const call of calls) {
      out.push(
        results.get(call.id) ??
          new ToolMessage({
            tool_call_id: call.id,
            name: call.name,
            status: 'error',
            content: JSON.stringify({ omitted: true, summary: `No result was recorded for this ${call.name || 'tool'} call.` }),
          }),
      );
    }
  }
  return out;
}

/** Leading system messages, then turns: each from a HumanMessage to the next (anything before the first is a turn of its own). */
function splitTurns(messages: readonly BaseMessage[]): { pinned: BaseMessage[]; turns: BaseMessage[][] } {
  let start = 0;
  while (start < messages.length && SystemMessage.isInstance(messages[start])) start += 1;
  const turns: BaseMessage[][] = [];
  for (const message of messages.slice(start)) {
    const current = turns[turns.length - 1];
    if (!current || HumanMessage.isInstance(message)) turns.push([message]);
    else current.push(message);
  }
  return { pinned: messages.slice(0, start), turns };
}

// -------------------------------------------------------------------------------------------
// The note for dropped turns

/** "Q: … → A: …", or what the turn's tools found when it has no written answer. */
function describeTurn(turn: readonly BaseMessage[]): string {
  const question = turn.find((message) => HumanMessage.isInstance(message));
  const answer = [...turn].reverse().find((message) => AIMessage.isInstance(message) && textOf(message.content).trim() !== '');
  const tools = [...new Set(turn.flatMap((message) => (AIMessage.isInstance(message) ? wireToolCalls(message).map((call) => call.name) : [])))];
  const parts: string[] = [];
  if (question) parts.push(`Q: ${cut(textOf(question.content), MAX_NOTE_QUESTION_CHARS)}`);
  if (answer) parts.push(`A: ${cut(textOf(answer.content), MAX_NOTE_ANSWER_CHARS)}`);
  else parts.push(`A: (no written answer${tools.length ? `; tools called: ${tools.join(', ')}` : ''})`);
  return parts.join(' → ');
}

/** One note for the first `count` turns' lines, oldest first; when they do not all fit, the most recent are listed. */
function summaryNote(lines: readonly string[], count: number, maxChars: number): SystemMessage {
  const header = (unlisted: number) =>
    `${SUMMARY_NOTE_TITLE} (${count} earlier turn${count === 1 ? '' : 's'} not shown in full${unlisted ? `; the ${unlisted} oldest not listed` : ''}):`;
  const listed: string[] = [];
  let size = header(count).length;
  for (let index = count - 1; index >= 0; index -= 1) {
    const line = `\n- ${lines[index]!}`;
    if (size + line.length > maxChars) {
      // Always say something about the latest dropped turn, even in a tiny budget.
      if (listed.length === 0) listed.unshift(`\n- ${cut(lines[index]!, Math.max(MIN_NOTE_LINE_CHARS, maxChars - size - 3))}`);
      break;
    }
    listed.unshift(line);
    size += line.length;
  }
  return new SystemMessage({ id: SUMMARY_NOTE_ID, content: `${header(count - listed.length)}${listed.join('')}` });
}

// -------------------------------------------------------------------------------------------
// Tool result summaries

type Json = Record<string, unknown>;

/** A short stand-in for a long tool result, or undefined when the result is short enough to keep. */
function summariseToolMessage(message: ToolMessage, name: string): ToolMessage | undefined {
  const text = textOf(message.content);
  if (text.length <= KEEP_TOOL_RESULT_CHARS) return undefined;
  const summary = cut(describeResult(name, text), MAX_TOOL_SUMMARY_CHARS);
  return new ToolMessage({
    ...(message.id ? { id: message.id } : {}),
    tool_call_id: message.tool_call_id,
    name: message.name,
    ...(message.status ? { status: message.status } : {}),
    content: JSON.stringify({ summary, omitted: true }),
  });
}

function describeResult(name: string, text: string): string {
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch {
    return `${name} returned text (${text.length} characters): ${oneLine(text)}`;
  }
  if (!isObject(result)) return `${name} returned ${oneLine(text)}`;
  if (isObject(result.error)) return describeError(name, result.error);
  if (result.truncated === true && typeof result.partial === 'string') return describeCutResult(name, result.partial);
  switch (name) {
    case 'compare_sources':
      return describeComparison(result);
    case 'explain_difference':
      return describeExplanation(result);
    case 'query_source':
      return describeQuery(result);
    case 'list_differences':
      return describeDifferences(result);
    case 'list_sources':
      return describeSources(result);
    default:
      return describeAny(name, result);
  }
}

function describeError(name: string, error: Json): string {
  const code = typeof error.code === 'string' ? error.code : 'error';
  const message = typeof error.message === 'string' ? ` ${error.message}` : '';
  const hint = typeof error.hint === 'string' ? ` Hint: ${error.hint}` : '';
  return `${name} failed (${code}):${message}${hint}`;
}

/** A result the agent cut to MAX_TOOL_RESULT_CHARS: its text fields can still be read from the partial JSON. */
function describeCutResult(name: string, partial: string): string {
  const field = (key: string) => new RegExp(`"${key}":("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?)`).exec(partial)?.[1];
  const facts = ['source', 'source_a', 'source_b', 'comparison_id', 'row_count', 'total_rows', 'interpretation', 'explanation']
    .map((key) => {
      const value = field(key);
      if (value === undefined) return '';
      try {
        return `${key} ${String(JSON.parse(value))}`;
      } catch {
        return '';
      }
    })
    .filter(Boolean);
  return `${name}: a large result, cut before it reached the model${facts.length ? `; ${facts.join('; ')}` : ''}.`;
}

function describeComparison(result: Json): string {
  const summary = isObject(result.summary) ? result.summary : {};
  const measure = [result.measure_a, result.measure_b].map((m) => (isObject(m) && typeof m.name === 'string' ? m.name : undefined));
  const measureText = measure[0] && measure[1] ? ` ${measure[0] === measure[1] ? measure[0] : `${measure[0]}/${measure[1]}`}` : '';
  const id = typeof result.comparison_id === 'string' ? ` [${result.comparison_id}]` : '';
  const counts = ['match', 'minor_diff', 'major_diff', 'only_in_a', 'only_in_b']
    .filter((key) => typeof summary[key] === 'number' && summary[key] !== 0)
    .map((key) => `${String(summary[key])} ${key}`);
  const alignedRows = summary.aligned_rows;
  const aligned = typeof alignedRows === 'number' ? `${alignedRows} aligned row${alignedRows === 1 ? '' : 's'}${counts.length ? `: ${counts.join(', ')}` : ''}.` : '';
  const totals = Array.isArray(summary.totals)
    ? summary.totals
        .filter(isObject)
        .map((t) => {
          const currency = typeof t.currency === 'string' ? t.currency : null;
          return `Total ${amount(t.total_a, currency)} vs ${amount(t.total_b, currency)}.`;
        })
        .join(' ')
    : '';
  // The counts say how the rows align; of the interpretation, the largest gap is what they do not say.
  const interpretation = typeof result.interpretation === 'string' ? result.interpretation : '';
  const largestGap = aligned ? /Largest gap\b.*$/.exec(interpretation)?.[0] : undefined;
  const reading = largestGap ?? (aligned && /^(Full alignment|Nothing to compare)/.test(interpretation) ? '' : interpretation);
  return `compare_sources ${String(result.source_a)} vs ${String(result.source_b)}${measureText}${id}: ${[aligned, reading, totals].filter(Boolean).join(' ')}`;
}

function describeExplanation(result: Json): string {
  const explanation = typeof result.explanation === 'string' ? result.explanation : '';
  const gap = isObject(result.gap) && typeof result.gap.difference === 'number' ? result.gap : undefined;
  const gapText = gap && !explanation ? ` gap ${amount(gap.difference, typeof gap.currency === 'string' ? gap.currency : null)}.` : '';
  return `explain_difference:${gapText} ${explanation}`.trim();
}

function describeQuery(result: Json): string {
  const measures = Array.isArray(result.measures) ? result.measures.map((m) => (isObject(m) ? String(m.name) : String(m))) : [];
  const dimensions = Array.isArray(result.dimensions) ? result.dimensions.map(String) : [];
  const rows = Array.isArray(result.rows) ? result.rows : [];
  const count = typeof result.row_count === 'number' ? result.row_count : rows.length;
  const total = typeof result.total_rows === 'number' && result.total_rows !== count ? ` of ${result.total_rows}` : '';
  const filters = isObject(result.filters) && Object.keys(result.filters).length ? `, filters ${JSON.stringify(result.filters)}` : '';
  const shape = `${measures.join(', ') || 'measures'}${dimensions.length ? ` by ${dimensions.join(', ')}` : ''}`;
  const first = rows[0] === undefined ? '' : ` ${rows.length === 1 ? 'row' : 'first row'}: ${JSON.stringify(rows[0])}`;
  return `query_source ${String(result.source)}: ${count}${total} row${count === 1 ? '' : 's'} of ${shape}${filters}.${first}`;
}

function describeDifferences(result: Json): string {
  const rows = Array.isArray(result.rows) ? result.rows : [];
  const differing = typeof result.differing_rows === 'number' ? ` of ${result.differing_rows} differing` : '';
  const first = rows[0] === undefined ? '' : ` Largest: ${JSON.stringify(rows[0])}`;
  return `list_differences ${String(result.comparison_id)} (${String(result.source_a)} vs ${String(result.source_b)}): ${rows.length} rows${differing} from offset ${String(result.offset ?? 0)}.${first}`;
}

function describeSources(result: Json): string {
  const names = Array.isArray(result.sources) ? result.sources.map((s) => (isObject(s) ? String(s.name) : String(s))) : [];
  const pairs = Array.isArray(result.comparable_pairs) ? `; ${result.comparable_pairs.length} comparable pairs` : '';
  const currency = typeof result.group_currency === 'string' ? `; group currency ${result.group_currency}` : '';
  return `list_sources: ${names.length} sources (${names.join(', ')})${pairs}${currency}.`;
}

/** A tool of another skill: its readable fields, else the shape of what it returned. */
function describeAny(name: string, result: Json): string {
  const text = ['interpretation', 'explanation', 'summary', 'message', 'answer', 'note'].map((key) => result[key]).find((v) => typeof v === 'string');
  const counts = ['row_count', 'total_rows', 'count']
    .filter((key) => typeof result[key] === 'number')
    .map((key) => `${key} ${String(result[key])}`);
  const details = [...counts, ...(typeof text === 'string' ? [text] : [])];
  return details.length ? `${name}: ${details.join('; ')}` : `${name} returned ${Object.keys(result).join(', ')}: ${oneLine(JSON.stringify(result))}`;
}

// -------------------------------------------------------------------------------------------
// Text helpers

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function amount(value: unknown, currency: string | null): string {
  return typeof value === 'number' ? formatAmount(value, currency) : String(value);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace collapsed, at most `max` characters, an ellipsis where it was cut. */
function cut(text: string, max: number): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  if (max <= 1) return line.slice(0, max);
  return `${line.slice(0, max - 1).trimEnd()}…`;
}
