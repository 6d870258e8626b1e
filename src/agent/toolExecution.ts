/**
 * Runs the tool calls of one model turn, in order, and answers each with a ToolMessage
 * carrying its id. A failing tool yields a structured error result; it never throws.
 */
import { ToolMessage } from '@langchain/core/messages';
import type { ToolContext } from '../skills/api.ts';
import type { SkillRegistry, ToolOutcome } from '../skills/registry.ts';
import { MAX_TOOL_RESULT_CHARS } from './constants.ts';
import { compactResult, type AgentEventListener } from './events.ts';
import type { PendingToolCall } from './turnPreparation.ts';
import type { RunHooks } from './hooks.ts';
import type { ToolCallRecord } from '../sessions/storedTurn.ts';

/** What the API reports about each tool call. */
/** Declared by the sessions layer, which stores it. */
export type { ToolCallRecord };

/**
 * Executes the calls sequentially (later calls may depend on earlier side effects in future skills).
 * Each result the model reads is cut to `maxResultChars` (the room the context window leaves).
 */
export async function executeToolCalls(
  calls: readonly PendingToolCall[],
  registry: SkillRegistry,
  context: ToolContext,
  onEvent?: AgentEventListener,
  hooks?: RunHooks,
  maxResultChars = MAX_TOOL_RESULT_CHARS,
): Promise<{ messages: ToolMessage[]; records: ToolCallRecord[] }> {
  const messages: ToolMessage[] = [];
  const records: ToolCallRecord[] = [];
  for (const call of calls) {
    const args = call.malformed ? call.malformed.raw : call.args;
    onEvent?.({ type: 'tool_start', id: call.id, name: call.name, args });
    hooks?.onToolStart?.({ id: call.id, name: call.name, args });
    const started = performance.now();
    // A tool for people only (a sign-off) is never run for the model, whatever led it to name one.
    const outcome: ToolOutcome = registry.get(call.name)?.tool.peopleOnly
      ? { ok: false, error: { code: 'forbidden', message: `The tool '${call.name}' is for people (POST /tools, MCP, a skill's page), not for the chat.`, hint: 'Tell the user to do it there.' } }
      : call.malformed
        ? await registry.execute(call.name, call.malformed.raw, context)
        : await registry.execute(call.name, call.args, context);
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const result = outcome.ok ? outcome.result : { error: outcome.error };
    context.logger.info(
      { tool: call.name, tool_call_id: call.id, duration_ms: durationMs, ok: outcome.ok, ...(outcome.ok ? {} : { error_code: outcome.error.code }) },
      'tool call',
    );
    hooks?.onToolEnd?.({ id: call.id, name: call.name, durationMs, ok: outcome.ok, ...(outcome.ok ? {} : { errorCode: outcome.error.code }) });
    const presentation = outcome.ok ? outcome.presentation : undefined;
    records.push({ id: call.id, name: call.name, args, ok: outcome.ok, result, duration_ms: durationMs, ...(presentation ? { presentation } : {}) });
    onEvent?.({ type: 'tool_result', id: call.id, name: call.name, ok: outcome.ok, duration_ms: durationMs, result: compactResult(result), ...(presentation ? { presentation } : {}) });
    messages.push(new ToolMessage({ tool_call_id: call.id, name: call.name, content: toModelText(result, maxResultChars), status: outcome.ok ? 'success' : 'error' }));
  }
  return { messages, records };
}

/** JSON for the model, cut to a bounded size so one result cannot flood the context. */
function toModelText(result: unknown, maxChars: number): string {
  const text = JSON.stringify(result) ?? 'null';
  if (text.length <= maxChars) return text;
  const cutTo = (length: number) =>
    JSON.stringify({ truncated: true, note: `The result had ${text.length} characters and was cut to ${maxChars}. Ask for fewer rows or dimensions.`, partial: text.slice(0, length) });
  // The partial JSON is escaped once more (each quote gains a backslash): shorten it by what that adds.
  const first = cutTo(maxChars - 300);
  return first.length <= maxChars ? first : cutTo(Math.max(0, maxChars - 300 - (first.length - maxChars)));
}
