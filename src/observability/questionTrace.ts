/**
 * The agent's observability as RunHooks (src/agent/hooks.ts): one question's model calls, tool
 * calls and tokens counted into the service's metrics (tokens per key too, and handed to
 * `onModelTokens` for the key's daily budget), and at its end (answered or failed) one
 * `trace` log line with every step in order. Built per question by whoever runs the agent, so
 * no module-level state is needed; without metrics (bench, unit tests) the trace is still logged.
 */
import type { RunHooks } from '../agent/hooks.ts';
import { messageTokens } from '../agent/tokenEstimate.ts';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from './metrics.ts';

/** One step of a question: a model call or a tool call, in the order they happened. */
export type TraceStep =
  | { type: 'model'; duration_ms: number; outcome: string; input_tokens?: number; output_tokens?: number; prompt_tokens?: number; tool_definition_tokens?: number; tool_calls?: string[] }
  | { type: 'tool'; tool: string; tool_call_id: string; duration_ms: number; outcome: string }
  /** The answer was sent back once for figures no tool result backs. */
  | { type: 'answer_check'; outcome: 'repair'; unverified_figures: number };

export interface QuestionObservation {
  /** Where the `trace` line goes (the request's logger, with its session id). */
  logger: Logger;
  /** This service's metrics; absent: count nothing. */
  metrics?: Metrics | undefined;
  /** The request id the trace line carries. */
  requestId?: string | undefined;
  /** The caller's key name (keys file name or `key:<hash>`), counted in `model_tokens_by_key_total`; absent: no keys. */
  key?: string | undefined;
  /** Told the tokens (input + output) of each model call, e.g. to charge the key's daily budget. */
  onModelTokens?: ((tokens: number) => void) | undefined;
}

const roundMs = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Hooks that measure one question (use a fresh set for each question).
 * @example
 * await runAgent({ ...options, hooks: questionHooks({ logger, metrics, requestId: String(request.id) }) });
 */
export function questionHooks(observation: QuestionObservation): RunHooks {
  const { logger, metrics, requestId, key, onModelTokens } = observation;
  const started = performance.now();
  const steps: TraceStep[] = [];
  return {
    onModelEnd({ durationMs, reply, toolCalls, promptTokens, toolDefinitionTokens }) {
      const input = reply.usage_metadata?.input_tokens;
      const output = reply.usage_metadata?.output_tokens;
      steps.push({
        type: 'model',
        duration_ms: roundMs(durationMs),
        outcome: 'ok',
        ...(input === undefined ? {} : { input_tokens: input }),
        ...(output === undefined ? {} : { output_tokens: output }),
        ...(promptTokens === undefined ? {} : { prompt_tokens: promptTokens }),
        ...(toolDefinitionTokens === undefined ? {} : { tool_definition_tokens: toolDefinitionTokens }),
        tool_calls: [...toolCalls],
      });
      // What the call cost the key: the provider's count, else the agent's estimate (never nothing).
      const spent = { input: input ?? promptTokens ?? 0, output: output ?? messageTokens(reply) };
      onModelTokens?.(spent.input + spent.output);
      if (key !== undefined) {
        metrics?.modelTokensByKey.inc({ key, kind: 'input' }, spent.input);
        metrics?.modelTokensByKey.inc({ key, kind: 'output' }, spent.output);
      }
      if (!metrics) return;
      metrics.modelCalls.inc({ provider: metrics.provider, outcome: 'ok' });
      metrics.modelCallDuration.observe({ provider: metrics.provider }, durationMs / 1000);
      if (input) metrics.modelTokens.inc({ provider: metrics.provider, kind: 'input' }, input);
      // The provider's count when it gives one (it tokenises for real), else the agent's estimate.
      const prompt = input || promptTokens;
      if (prompt) metrics.modelPromptTokens.observe({ provider: metrics.provider }, prompt);
      if (output) metrics.modelTokens.inc({ provider: metrics.provider, kind: 'output' }, output);
    },
    onModelError({ durationMs, error }) {
      const outcome = errorKind(error);
      steps.push({ type: 'model', duration_ms: roundMs(durationMs), outcome });
      metrics?.modelCalls.inc({ provider: metrics.provider, outcome });
      metrics?.modelCallDuration.observe({ provider: metrics.provider }, durationMs / 1000);
    },
    onToolEnd({ id, name, durationMs, ok, errorCode }) {
      const outcome = ok ? 'ok' : (errorCode ?? 'error');
      steps.push({ type: 'tool', tool: name, tool_call_id: id, duration_ms: durationMs, outcome });
      metrics?.toolCalls.inc({ tool: name, outcome });
      metrics?.toolCallDuration.observe({ tool: name }, durationMs / 1000);
    },
    onAnswerRepair({ unverified }) {
      steps.push({ type: 'answer_check', outcome: 'repair', unverified_figures: unverified });
      metrics?.answerRepairs.inc();
    },
    onUnverifiedFigures({ count }) {
      metrics?.unverifiedFigures.inc(count);
    },
    onTurnEnd({ finished, stopReason, iterations, error }) {
      // A failed question counts the model calls it made, whatever failed.
      const calls = error === undefined ? iterations : steps.filter((step) => step.type === 'model').length;
      metrics?.agentIterations.observe(calls);
      metrics?.questions.inc({ finished: String(finished), stop_reason: stopReason });
      logger.info(
        {
          request_id: requestId,
          finished,
          stop_reason: stopReason,
          iterations: calls,
          duration_ms: roundMs(performance.now() - started),
          ...(error === undefined ? {} : { error: errorKind(error) }),
          steps,
        },
        'trace',
      );
    },
  };
}

/** A short label for a failure: the provider error's kind, a tool error's code, else `error`. */
function errorKind(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { kind, code } = error as { kind?: unknown; code?: unknown };
    if (typeof kind === 'string') return kind;
    if (typeof code === 'string') return code;
  }
  return 'error';
}
