/**
 * Prepares what the model sees: the system prompt (systemPrompt.ts), the conversation so far,
 * and assistant messages normalised so every tool call has an id and a parsed or explicitly
 * malformed argument object.
 */
import { randomUUID } from 'node:crypto';
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';

/** The messages for one model call: system prompt, earlier turns, this turn so far. */
export function prepareMessages(systemPrompt: string, history: readonly BaseMessage[], turn: readonly BaseMessage[]): BaseMessage[] {
  return [new SystemMessage(systemPrompt), ...history, ...turn];
}

/** The question as a message; the reader's locale rides along (providers are not sent it). */
export function questionMessage(text: string, locale?: string): HumanMessage {
  return new HumanMessage({ content: text, additional_kwargs: locale ? { locale } : {} });
}

/** One tool call to run: arguments, or the reason they could not be parsed. */
export interface PendingToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Set when the provider sent arguments that are not a JSON object. */
  malformed?: { raw: string; reason: string };
}

/**
 * Gives every tool call an id (some local servers omit them) and folds malformed calls
 * (LangChain puts them in `invalid_tool_calls`) into the message's tool calls, so the stored
 * history always pairs each call with exactly one tool result.
 */
export function normaliseAssistantMessage(message: AIMessage): { message: AIMessage; calls: PendingToolCall[] } {
  const calls = inModelOrder(message).map((call): PendingToolCall => {
    if (call.kind === 'invalid') {
      // Streamed calls without an id land here although their arguments are fine.
      const parsed = parseObject(call.value.args);
      if (parsed) return { id: call.value.id || generatedId(), name: call.value.name ?? 'unknown', args: parsed };
      return {
        id: call.value.id || generatedId(),
        name: call.value.name ?? 'unknown',
        args: {},
        malformed: { raw: call.value.args ?? '', reason: call.value.error ?? 'arguments are not valid JSON' },
      };
    }
    const { id, name, args } = call.value;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      // Valid JSON that is not an object ("fi_reporting", [1]) cannot be tool arguments.
      return { id: id || generatedId(), name, args: {}, malformed: { raw: JSON.stringify(args), reason: 'arguments must be a JSON object' } };
    }
    return { id: id || generatedId(), name, args: args as Record<string, unknown> };
  });
  if (calls.length === 0) return { message, calls };
  const normalised = new AIMessage({
    content: message.content,
    id: message.id,
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: 'tool_call' as const })),
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
  });
  return { message: normalised, calls };
}

type ParsedCall = NonNullable<AIMessage['tool_calls']>[number];
type InvalidCall = NonNullable<AIMessage['invalid_tool_calls']>[number];
type OrderedCall = { kind: 'valid'; value: ParsedCall } | { kind: 'invalid'; value: InvalidCall };

/**
 * LangChain splits a turn's calls into `tool_calls` and `invalid_tool_calls`, losing their
 * order. The provider's raw list (when present) restores it: a raw call whose arguments parse
 * as JSON became the next valid call, any other the next invalid one.
 */
function inModelOrder(message: AIMessage): OrderedCall[] {
  const valid = [...(message.tool_calls ?? [])];
  const invalid = [...(message.invalid_tool_calls ?? [])];
  const raw = message.additional_kwargs?.tool_calls;
  const ordered: OrderedCall[] = [];
  if (Array.isArray(raw) && raw.length === valid.length + invalid.length) {
    for (const call of raw) {
      if (parsesAsJson(call?.function?.arguments)) {
        const value = valid.shift();
        if (value) ordered.push({ kind: 'valid', value });
      } else {
        const value = invalid.shift();
        if (value) ordered.push({ kind: 'invalid', value });
      }
    }
  }
  ordered.push(...valid.map((value) => ({ kind: 'valid' as const, value })), ...invalid.map((value) => ({ kind: 'invalid' as const, value })));
  return ordered;
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function parsesAsJson(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function generatedId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}
