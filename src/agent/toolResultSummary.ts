/**
 * Compact stand-ins for the long tool results of older turns. The context window keeps such a
 * turn's tool calls answered (same tool_call_id and name, so the chat format stays valid) at a
 * fraction of the size. Each tool of this service gets a summary of what its result says
 * (counts, totals, the reading of a comparison), so the model can still build on what an
 * earlier turn found; a tool of another skill gets its readable fields.
 */
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { formatAmount } from '../shared/format.ts';
import { cut, isObject, oneLine, textOf, wireToolCalls, type Json } from '../shared/messageText.ts';

/** Longest summary of one tool result, in characters. */
const MAX_TOOL_SUMMARY_CHARS = 300;
/** Tool results this short are kept as they are: a summary would save next to nothing. */
const KEEP_TOOL_RESULT_CHARS = 400;

export interface SummarisedTurn {
  messages: BaseMessage[];
  /** Tool results replaced by a summary. */
  summarised: number;
}

/** An older turn with its long tool results replaced by summaries. */
export function summariseToolResults(turn: readonly BaseMessage[]): SummarisedTurn {
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

function amount(value: unknown, currency: string | null): string {
  return typeof value === 'number' ? formatAmount(value, currency) : String(value);
}
