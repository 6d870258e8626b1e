/**
 * Compact stand-ins for the long tool results of older turns. The context window keeps such a
 * turn's tool calls answered (same tool_call_id and name, so the chat format stays valid) at a
 * fraction of the size. A tool that declares `summarize` says what its result found (counts,
 * totals, the reading of a comparison), so the model can still build on an earlier turn; any
 * other tool gets its readable fields.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { cut, isObject, oneLine, textOf, wireToolCalls, type Json } from '../shared/messageText.ts';

/** What the tools say about their own results: the skill registry implements it. */
export interface ToolSummaries {
  /** The tool's one-line summary of a successful result, or undefined to use a generic one. */
  summarize(name: string, result: unknown): string | undefined;
}

/** Longest summary of one tool result, in characters. */
const MAX_TOOL_SUMMARY_CHARS = 300;
/** Tool results this short are kept as they are: a summary would save next to nothing. */
const KEEP_TOOL_RESULT_CHARS = 400;

export interface SummarisedTurn {
  messages: BaseMessage[];
  /** Tool results replaced by a summary. */
  summarised: number;
}

/**
 * An older turn with its long tool results replaced by summaries, each the tool's own
 * (`tools`, usually the skill registry) or else a generic one.
 * @example
 * summariseToolResults(turn, registry).messages // same messages, long tool results as {"summary": …, "omitted": true}
 */
export function summariseToolResults(turn: readonly BaseMessage[], tools?: ToolSummaries): SummarisedTurn {
  // A tool result without a name is named after its call.
  const callNames = new Map(turn.flatMap((message) => (AIMessage.isInstance(message) ? wireToolCalls(message).map((call) => [call.id, call.name] as const) : [])));
  let summarised = 0;
  const messages = turn.map((message) => {
    const summary = ToolMessage.isInstance(message) ? summariseToolMessage(message, message.name || callNames.get(message.tool_call_id) || 'tool', tools) : undefined;
    if (!summary) return message;
    summarised += 1;
    return summary;
  });
  return { messages, summarised };
}

/** A short stand-in for a long tool result, or undefined when the result is short enough to keep. */
function summariseToolMessage(message: ToolMessage, name: string, tools: ToolSummaries | undefined): ToolMessage | undefined {
  const text = textOf(message.content);
  if (text.length <= KEEP_TOOL_RESULT_CHARS) return undefined;
  const summary = cut(describeResult(name, text, tools), MAX_TOOL_SUMMARY_CHARS);
  return new ToolMessage({
    ...(message.id ? { id: message.id } : {}),
    tool_call_id: message.tool_call_id,
    name: message.name,
    ...(message.status ? { status: message.status } : {}),
    content: JSON.stringify({ summary, omitted: true }),
  });
}

function describeResult(name: string, text: string, tools: ToolSummaries | undefined): string {
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch {
    return `${name} returned text (${text.length} characters): ${oneLine(text)}`;
  }
  if (!isObject(result)) return `${name} returned ${oneLine(text)}`;
  if (isObject(result.error)) return describeError(name, result.error);
  if (result.truncated === true && typeof result.partial === 'string') return describeCutResult(name, result.partial);
  return tools?.summarize(name, result) ?? describeAny(name, result);
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

/**
 * A result of a tool without `summarize`: its readable fields, else the shape of what it returned.
 * @example
 * describeAny('count_rows', { row_count: 3, note: 'Blank values excluded.' }) // 'count_rows: row_count 3; Blank values excluded.'
 */
function describeAny(name: string, result: Json): string {
  const text = ['interpretation', 'explanation', 'summary', 'message', 'answer', 'note'].map((key) => result[key]).find((v) => typeof v === 'string');
  const counts = ['row_count', 'total_rows', 'count']
    .filter((key) => typeof result[key] === 'number')
    .map((key) => `${key} ${String(result[key])}`);
  const details = [...counts, ...(typeof text === 'string' ? [text] : [])];
  return details.length ? `${name}: ${details.join('; ')}` : `${name} returned ${Object.keys(result).join(', ')}: ${oneLine(JSON.stringify(result))}`;
}

