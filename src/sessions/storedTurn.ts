/**
 * The shape of a stored turn's parts: what the model calls cost (Usage), each tool call
 * (ToolCallRecord), each figure of the answer with its receipt (AnswerFigure) and why the turn
 * ended (StopReason). The agent produces values of these types and the stores keep them; they
 * are declared here, in the sessions layer, so the stores need nothing from the agent (data
 * flows one way: docs/layout.md).
 */
import type { CheckedFigure, Receipt } from '../receipts/index.ts';
import type { PresentationSpec } from '../skills/presentation.ts';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Estimated tokens of the prompt sent with the question (system prompt, fitted history, question). */
  prompt_tokens: number;
  /** Each model call, in order (absent in turns stored before it was reported). */
  calls?: CallUsage[];
  /** Estimated tokens of the tool definitions, summed over the calls. */
  tool_definition_tokens?: number;
  /** The definitions' share of the estimated prompt tokens of all calls (0 to 1). */
  tool_definition_share?: number;
}

/** What one model call was sent. */
export interface CallUsage {
  /** Input tokens the provider reported for the call (0 when it reports none). */
  input_tokens: number;
  /** Estimated tokens of the whole call: messages and tool definitions. */
  prompt_tokens: number;
  /** Estimated tokens of the tool definitions bound to the call. */
  tool_definition_tokens: number;
  /** How many tools were bound. */
  tools: number;
}

/**
 * `provider_error` marks a stored turn the model provider could not finish, `client_stopped` one
 * the client stopped (went away) before the answer was written (see the agent's progressOf).
 */
export type StopReason = 'completed' | 'max_iterations' | 'provider_error' | 'client_stopped';

/** One tool call of a turn, as stored and as POST /chat returns it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  args: unknown;
  ok: boolean;
  result: unknown;
  duration_ms: number;
  /** How the web chat shows the result, when the tool says (its `present`). */
  presentation?: PresentationSpec;
}

/** A figure as POST /chat returns it: the span as written, the value read, what it is, its receipt. */
export interface AnswerFigure {
  text: string;
  start: number;
  end: number;
  value: number;
  kind: CheckedFigure['kind'];
  receipt: Receipt;
}
