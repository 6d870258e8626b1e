/**
 * Turns whatever the model client threw (OpenAI SDK errors, LangChain retry errors, aborts,
 * socket errors, unparsable bodies) into one ModelProviderError with a plain message.
 */
import { ModelProviderError } from '../errors/index.ts';
import { redactUrls } from '../shared/redact.ts';

/** How OpenAI, vLLM, llama.cpp and LM Studio word a prompt longer than the model's window. */
const CONTEXT_EXCEEDED = /context length|context window|context size|maximum context|exceeds the available context|too many tokens/i;

/** Classifies a model-call failure. `signal` is the run's signal, to recognise our own deadline. */
export function toModelProviderError(error: unknown, signal?: AbortSignal): ModelProviderError {
  if (ModelProviderError.isInstance(error)) return error;
  const err = error as { name?: string; message?: string; status?: number; code?: string; cause?: { code?: string } } | undefined;
  // A client error may quote the endpoint URL with its credentials or tokens: never pass those on.
  const message = redactUrls(String(err?.message ?? error).split('\n')[0]!).slice(0, 300);
  const status = typeof err?.status === 'number' ? err.status : undefined;
  if (signal?.aborted || err?.name === 'AbortError' || err?.name === 'TimeoutError' || err?.name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(message)) {
    return new ModelProviderError('timeout', 'The model did not answer in time.', { cause: error });
  }
  if (status === 429 || err?.name === 'RateLimitCapacityError' || /rate limit/i.test(message)) {
    return new ModelProviderError('rate_limited', 'The model provider is rate limiting requests; try again shortly.', { cause: error });
  }
  if (status !== undefined && status >= 500) {
    return new ModelProviderError('unavailable', `The model provider failed (HTTP ${status}) after retries.`, { cause: error });
  }
  // LangChain names it ContextOverflowError (status in the message); other clients keep the status and code.
  if (err?.name === 'ContextOverflowError' || err?.code === 'context_length_exceeded' || (status !== undefined && status >= 400 && status < 500 && CONTEXT_EXCEEDED.test(message))) {
    // The service sent more than the model holds: its window is smaller than MODEL_CONTEXT_TOKENS says.
    return new ModelProviderError(
      'context_too_small',
      `The prompt does not fit the model's context window: ${message.replace(/^\d{3} /, '')} Set MODEL_CONTEXT_TOKENS to the model's context size, so the service fits every call into it.`,
      { cause: error },
    );
  }
  if (status !== undefined && status >= 400) {
    return new ModelProviderError('rejected', `The model provider rejected the request (HTTP ${status}): ${message}`, { cause: error });
  }
  if (err?.name === 'APIConnectionError' || /ECONNREFUSED|ENOTFOUND|ECONNRESET|socket|connection error|fetch failed/i.test(`${message} ${err?.code ?? ''} ${err?.cause?.code ?? ''}`)) {
    return new ModelProviderError('unavailable', 'The model provider cannot be reached.', { cause: error });
  }
  return new ModelProviderError('bad_response', `The model provider sent a response that could not be used: ${message}`, { cause: error });
}
