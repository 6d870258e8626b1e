/**
 * A failure inside a tool that the model can recover from: it becomes a tool result
 * shaped `{"error": {code, message, hint, ...}}` instead of an exception.
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.tool');

export type ToolErrorCode =
  | 'invalid_arguments'
  | 'malformed_arguments'
  | 'unknown_tool'
  | 'unknown_source'
  | 'unknown_measure'
  | 'unknown_dimension'
  | 'unknown_value'
  | 'value_not_held'
  | 'invalid_value'
  | 'not_comparable'
  | 'query_failed'
  | 'timeout'
  | 'busy'
  | 'data_unavailable'
  | 'source_unavailable'
  | 'conflict'
  | 'forbidden'
  | 'internal_error';

/** The JSON a model (or a dashboard) receives when a tool call fails. */
export interface ToolErrorPayload {
  error: { code: ToolErrorCode; message: string; hint?: string; [detail: string]: unknown };
}

/** A recoverable tool failure with a machine-readable code and a hint for the next attempt. */
export class ToolError extends AnalystError {
  readonly [marker] = true;
  readonly code: ToolErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ToolErrorCode, message: string, options: { hint?: string; details?: Record<string, unknown> } = {}) {
    super(message);
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
  }

  toPayload(): ToolErrorPayload {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.hint ? { hint: this.hint } : {}),
        ...this.details,
      },
    };
  }

  static override isInstance(error: unknown): error is ToolError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
