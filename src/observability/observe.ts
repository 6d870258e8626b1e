/**
 * What a request does, measured: the HTTP middleware opens an observation for each request
 * (its metrics and request id, carried by AsyncLocalStorage), and the agent's hooks below add to
 * it — model calls, tool calls, token counts, the per-question trace. Outside a request (bench,
 * unit tests) the hooks still log the trace but count nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AIMessage } from '@langchain/core/messages';
import type { RequestHandler, Response } from 'express';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from './metrics.ts';

interface RequestObservation {
  metrics: Metrics;
  requestId: string;
  question?: QuestionTrace;
}

/** One step of a question: a model call or a tool call, in the order they happened. */
export type TraceStep =
  | { type: 'model'; duration_ms: number; outcome: string; input_tokens?: number; output_tokens?: number; tool_calls?: string[] }
  | { type: 'tool'; tool: string; tool_call_id: string; duration_ms: number; outcome: string };

interface QuestionTrace {
  started: number;
  steps: TraceStep[];
}

const storage = new AsyncLocalStorage<Partial<RequestObservation>>();

const roundMs = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Express middleware: times every request into `http_request_duration_seconds`, labelled by the
 * route pattern that answered (`/sessions/:id`, never the raw URL; `unmatched` when none did),
 * and opens the observation the agent hooks report to. Mount it after pino-http (request ids).
 */
export function observeRequests(metrics: Metrics): RequestHandler {
  return (request, response, next) => {
    const started = performance.now();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const route = (request.route as { path?: unknown } | undefined)?.path;
      metrics.httpRequestDuration.observe(
        { method: request.method, route: typeof route === 'string' ? route : 'unmatched', status: String(response.statusCode) },
        (performance.now() - started) / 1000,
      );
    };
    response.on('finish', record);
    response.on('close', record);
    storage.run({ metrics, requestId: String(request.id ?? '') }, next);
  };
}

/** GET /metrics: the registry in the Prometheus text format (version 0.0.4). */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return (_request, response, next) => {
    metrics
      .exposition()
      .then(({ contentType, text }) => {
        response.setHeader('content-type', contentType);
        response.send(text);
      })
      .catch(next);
  };
}

/**
 * Runs one question in a trace of its own; at the end (answered or failed) counts it and logs
 * one `trace` line with every model and tool call, their durations and outcomes.
 */
export async function traceQuestion<T extends { iterations: number; finished: boolean; stopReason: string }>(logger: Logger, run: () => Promise<T>): Promise<T> {
  const parent = storage.getStore() ?? {};
  const trace: QuestionTrace = { started: performance.now(), steps: [] };
  return storage.run({ ...parent, question: trace }, async () => {
    const finish = (finished: boolean, stopReason: string, iterations: number, error?: unknown) => {
      parent.metrics?.agentIterations.observe(iterations);
      parent.metrics?.questions.inc({ finished: String(finished), stop_reason: stopReason });
      logger.info(
        {
          request_id: parent.requestId,
          finished,
          stop_reason: stopReason,
          iterations,
          duration_ms: roundMs(performance.now() - trace.started),
          ...(error === undefined ? {} : { error: errorKind(error) }),
          steps: trace.steps,
        },
        'trace',
      );
    };
    try {
      const result = await run();
      finish(result.finished, result.stopReason, result.iterations);
      return result;
    } catch (error) {
      finish(false, 'error', trace.steps.filter((step) => step.type === 'model').length, error);
      throw error;
    }
  });
}

/** Hook for a model call that answered (`started` from performance.now()). */
export function recordModelCall(started: number, reply: AIMessage, toolCalls: readonly { name: string }[]): void {
  const seconds = (performance.now() - started) / 1000;
  const input = reply.usage_metadata?.input_tokens;
  const output = reply.usage_metadata?.output_tokens;
  const observation = storage.getStore();
  observation?.question?.steps.push({
    type: 'model',
    duration_ms: roundMs(seconds * 1000),
    outcome: 'ok',
    ...(input === undefined ? {} : { input_tokens: input }),
    ...(output === undefined ? {} : { output_tokens: output }),
    tool_calls: toolCalls.map((call) => call.name),
  });
  const metrics = observation?.metrics;
  if (!metrics) return;
  metrics.modelCalls.inc({ provider: metrics.provider, outcome: 'ok' });
  metrics.modelCallDuration.observe({ provider: metrics.provider }, seconds);
  if (input) metrics.modelTokens.inc({ provider: metrics.provider, kind: 'input' }, input);
  if (output) metrics.modelTokens.inc({ provider: metrics.provider, kind: 'output' }, output);
}

/** Hook for a model call that failed; returns the error, for `throw recordModelFailure(…)`. */
export function recordModelFailure<E>(started: number, error: E): E {
  const seconds = (performance.now() - started) / 1000;
  const observation = storage.getStore();
  const outcome = errorKind(error);
  observation?.question?.steps.push({ type: 'model', duration_ms: roundMs(seconds * 1000), outcome });
  const metrics = observation?.metrics;
  if (metrics) {
    metrics.modelCalls.inc({ provider: metrics.provider, outcome });
    metrics.modelCallDuration.observe({ provider: metrics.provider }, seconds);
  }
  return error;
}

/** Hook for one tool call made by the agent: outcome `ok` or the tool error code. */
export function recordToolCall(call: { tool: string; id: string; durationMs: number; ok: boolean; errorCode?: string }): void {
  const outcome = call.ok ? 'ok' : (call.errorCode ?? 'error');
  const observation = storage.getStore();
  observation?.question?.steps.push({ type: 'tool', tool: call.tool, tool_call_id: call.id, duration_ms: call.durationMs, outcome });
  observation?.metrics?.toolCalls.inc({ tool: call.tool, outcome });
  observation?.metrics?.toolCallDuration.observe({ tool: call.tool }, call.durationMs / 1000);
}

/** Counts an open event stream in `sse_streams_active` until its response closes. */
export function trackEventStream(response: Response): void {
  const metrics = storage.getStore()?.metrics;
  if (!metrics) return;
  metrics.sseStreamsActive.inc();
  let open = true;
  const closed = () => {
    if (!open) return;
    open = false;
    metrics.sseStreamsActive.dec();
  };
  response.on('close', closed);
  response.on('finish', closed);
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
