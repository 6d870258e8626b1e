/**
 * What a running agent reports as it works, for live (streamed) answers: text as the model
 * writes it, and each tool call as it starts and finishes.
 */
import type { PresentationSpec } from '../skills/presentation.ts';

export type AgentEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_start'; id: string; name: string; args: unknown }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; duration_ms: number; result: unknown; presentation?: PresentationSpec }
  /** The answer streamed so far states figures no tool result backs: it is replaced by the one that follows. */
  | { type: 'answer_replaced'; answer: string; unverified: string[] };

export type AgentEventListener = (event: AgentEvent) => void;

/** Tool results above this size (characters of JSON) are compacted in events; `final` has them whole. */
const MAX_EVENT_RESULT_CHARS = 4_000;
const PREVIEW_ROWS = 10;

/**
 * A tool result small enough to stream: long row lists are cut to their first rows (with a
 * note), anything else too large becomes a preview. The complete result comes with `final`.
 */
export function compactResult(result: unknown): unknown {
  const text = JSON.stringify(result) ?? 'null';
  if (text.length <= MAX_EVENT_RESULT_CHARS || result === null || typeof result !== 'object' || Array.isArray(result)) {
    return text.length <= MAX_EVENT_RESULT_CHARS ? result : { compacted: true, preview: text.slice(0, MAX_EVENT_RESULT_CHARS) };
  }
  const compacted: Record<string, unknown> = { compacted: true };
  for (const [key, value] of Object.entries(result)) {
    if (key === 'sql') continue;
    compacted[key] = Array.isArray(value) && value.length > PREVIEW_ROWS ? value.slice(0, PREVIEW_ROWS) : value;
  }
  const again = JSON.stringify(compacted);
  return again.length <= MAX_EVENT_RESULT_CHARS * 2 ? compacted : { compacted: true, preview: text.slice(0, MAX_EVENT_RESULT_CHARS) };
}
