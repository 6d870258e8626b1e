/**
 * Prometheus metrics of one service instance, in a registry of its own (never prom-client's
 * global one), so two services in one process — the tests — never share counts.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { trackDependencies, type DependencySources } from './dependencyMetrics.ts';

export interface MetricsOptions {
  /** The chat model provider, the `provider` label of model calls (`offline`, `openai`…). */
  provider: string;
  /** Also collect prom-client's default process metrics (CPU, memory, event loop, GC). */
  processMetrics?: boolean;
}

/** Latency buckets (seconds) for HTTP requests, model calls and tool calls. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const ITERATION_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20];
/** Prompt sizes (tokens): from a lean first call to a hosted model's whole window. */
const PROMPT_TOKEN_BUCKETS = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000];

export class Metrics {
  readonly registry = new Registry();
  readonly provider: string;
  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern (unmatched when no route matched) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly toolCalls = new Counter({
    name: 'tool_calls_total',
    help: 'Tool calls made by the agent, by tool and outcome (ok or the tool error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly toolCallDuration = new Histogram({
    name: 'tool_call_duration_seconds',
    help: 'Duration of the tool calls made by the agent, by tool.',
    labelNames: ['tool'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly modelCalls = new Counter({
    name: 'model_calls_total',
    help: 'Chat model calls, by provider and outcome (ok or the provider failure kind).',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelCallDuration = new Histogram({
    name: 'model_call_duration_seconds',
    help: 'Duration of chat model calls, by provider.',
    labelNames: ['provider'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: 'model_tokens_total',
    help: 'Tokens reported by the chat model, by provider and kind (input or output).',
    labelNames: ['provider', 'kind'] as const,
    registers: [this.registry],
  });
  readonly modelTokensByKey = new Counter({
    name: 'model_tokens_by_key_total',
    help: 'Chat model tokens spent on behalf of each API key, by key name (the keys file name, or key:<hash> for API_KEYS; never the key) and kind (input or output): as the model reports them, else estimated.',
    labelNames: ['key', 'kind'] as const,
    registers: [this.registry],
  });
  readonly modelPromptTokens = new Histogram({
    name: 'model_prompt_tokens',
    help: 'Prompt tokens of each chat model call (messages and tool definitions), by provider: as the provider reports them, else estimated.',
    labelNames: ['provider'] as const,
    buckets: PROMPT_TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly agentIterations = new Histogram({
    name: 'agent_iterations',
    help: 'Model calls per question.',
    buckets: ITERATION_BUCKETS,
    registers: [this.registry],
  });
  readonly questions = new Counter({
    name: 'questions_total',
    help: 'Questions the agent worked on, by whether it finished and why it stopped (completed, max_iterations or error).',
    labelNames: ['finished', 'stop_reason'] as const,
    registers: [this.registry],
  });
  readonly answerRepairs = new Counter({
    name: 'answer_repairs_total',
    help: 'Answers sent back to the model once because they stated figures no tool result backs (ANSWER_CHECK=repair).',
    registers: [this.registry],
  });
  readonly unverifiedFigures = new Counter({
    name: 'unverified_figures_total',
    help: 'Figures returned flagged unverified: stated in an answer, backed by no tool result (after any repair).',
    registers: [this.registry],
  });
  readonly sseStreamsActive = new Gauge({
    name: 'sse_streams_active',
    help: 'Server-Sent Event streams currently open.',
    registers: [this.registry],
  });

  constructor(options: MetricsOptions) {
    this.provider = options.provider;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Adds the query pool's and the databases' state, read when scraped: workers by state, the
   * queue, restarts, refusals and cancellations, and each dependency's health status.
   * @example
   * metrics.trackDependencies({ pool: queries, storage: () => sessions.storageHealth() });
   */
  trackDependencies(sources: DependencySources): void {
    trackDependencies(this.registry, sources);
  }

  /** The exposition text and its content type (`text/plain; version=0.0.4; charset=utf-8`). */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

export function createMetrics(options: MetricsOptions): Metrics {
  return new Metrics(options);
}
