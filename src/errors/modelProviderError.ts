/**
 * The model endpoint failed after its retries: timed out, refused, rate limited or answered
 * nonsense. The HTTP layer turns it into a 502/503/504 problem response.
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.model-provider');

/** `context_too_small`: the question does not fit the model's context window (MODEL_CONTEXT_TOKENS, or the server's own). */
export type ModelFailureKind = 'timeout' | 'rate_limited' | 'unavailable' | 'bad_response' | 'rejected' | 'context_too_small';

/** The chat model could not produce a reply within the retries and deadline. */
export class ModelProviderError extends AnalystError {
  readonly [marker] = true;
  readonly kind: ModelFailureKind;

  constructor(kind: ModelFailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }

  static override isInstance(error: unknown): error is ModelProviderError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
