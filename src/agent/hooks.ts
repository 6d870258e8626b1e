/**
 * What a running agent tells its observers, in the style of openai-agents-js `RunHooks`: each
 * model call and tool call as it starts and ends, and the end of the question (answered or
 * failed). The caller passes them to runAgent; the agent knows nothing of metrics, logs or
 * HTTP, so it runs the same in a request, a benchmark or a unit test.
 */
import type { AIMessage } from '@langchain/core/messages';

/** A model call that answered. */
export interface ModelEndEvent {
  /** 1 for the first model call of the question. */
  iteration: number;
  durationMs: number;
  reply: AIMessage;
  /** The tools the reply asks for, in order. */
  toolCalls: readonly string[];
  /** Estimated tokens the call was sent: messages and tool definitions. */
  promptTokens?: number;
  /** Estimated tokens of the tool definitions bound to the call. */
  toolDefinitionTokens?: number;
}

/** A tool call that finished (tools never throw: a failure is `ok: false` with its error code). */
export interface ToolEndEvent {
  id: string;
  name: string;
  durationMs: number;
  ok: boolean;
  errorCode?: string;
}

/** The end of a question: answered (`completed`, `max_iterations`) or failed (`error`, with it). */
export interface TurnEndEvent {
  finished: boolean;
  stopReason: string;
  iterations: number;
  error?: unknown;
}

/**
 * Observers of one agent run. Every hook is optional and synchronous; a hook must not throw
 * (they are called inline, between the steps they report).
 * @example
 * await runAgent({ ...options, hooks: { onToolEnd: (call) => console.log(call.name, call.ok) } });
 */
export interface RunHooks {
  onModelStart?(event: { iteration: number }): void;
  onModelEnd?(event: ModelEndEvent): void;
  /** A model call that failed after the provider's retries; the question fails with it. */
  onModelError?(event: { iteration: number; durationMs: number; error: unknown }): void;
  onToolStart?(event: { id: string; name: string; args: unknown }): void;
  onToolEnd?(event: ToolEndEvent): void;
  onTurnEnd?(event: TurnEndEvent): void;
  /** The final answer stated figures no tool result backs and the model was asked once to correct them. */
  onAnswerRepair?(event: { unverified: number }): void;
  /** The answer as returned still states this many figures no tool result backs (flagged unverified). */
  onUnverifiedFigures?(event: { count: number }): void;
}
