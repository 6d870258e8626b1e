/**
 * Reads LangChain messages as the OpenAI chat request carries them: their text, the size of
 * their content and their tool calls. The token estimate, the pairing of tool results and the
 * summaries must all see a message the same way, or the budget would count one thing and send
 * another. The text helpers live here too so the note and the tool summaries shorten alike.
 */
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { isObject, type Json } from './json.ts';

export { isObject, type Json } from './json.ts';

/** Characters the content takes on the wire: text blocks as text, any other block as its JSON. */
export function contentChars(content: BaseMessage['content']): number {
  if (typeof content === 'string') return content.length;
  return contentParts(content).reduce((sum, part) => sum + (part.text ?? JSON.stringify(part.raw) ?? '').length, 0);
}

/** The text of the content; non-text blocks contribute nothing. */
export function textOf(content: BaseMessage['content']): string {
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

export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The tool calls as the OpenAI request carries them: LangChain sends `tool_calls` when there
 * are any, else the raw `additional_kwargs.tool_calls`.
 */
export function wireToolCalls(message: AIMessage): WireToolCall[] {
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
// Text helpers

/** Whitespace collapsed to single spaces and trimmed: summaries and notes are read as one line each. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whitespace collapsed, at most `max` characters, an ellipsis where it was cut. */
export function cut(text: string, max: number): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  if (max <= 1) return line.slice(0, max);
  return `${line.slice(0, max - 1).trimEnd()}…`;
}
