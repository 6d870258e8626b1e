/**
 * Asks a question set through POST /chat of a running instance, one question at a time, and
 * judges each answer (answerOutcome.ts). It talks plain HTTP, so it measures whatever model the
 * instance runs (the offline one, OpenAI, a local Ollama model) exactly as a client sees it:
 * latency is measured here, model calls and tokens are the ones /chat reports. Follow-ups are
 * asked in the conversation of the question before them, as an analyst would.
 *
 * A question that fails (an HTTP error, a timeout, a dropped connection) is recorded as an
 * error and the run goes on; only what would fail every question stops it: a service that
 * cannot be reached, or a key it refuses (EvaluationAbortedError).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { AnalystError } from '../errors/index.ts';
import { outcomeOf, type Outcome } from './answerOutcome.ts';
import type { EvaluationQuestion, Expectation } from './questionSet.ts';
import { summarise, type EvaluationSummary } from './summary.ts';

/** A judged answer, or 'error' when the question got no answer. */
export type EvaluationOutcome = Outcome | 'error';

/** What was expected, as reports show it (without the project's SQL checks). */
export type ExpectedReply = { kind: 'answer'; figures: string[]; mentions?: string[] } | { kind: 'clarify' | 'decline'; reason: string } | { kind: 'knowledge'; cites: string };

/** One question as it went. Field names follow the HTTP API (snake_case): this is the --out JSON. */
export interface QuestionResult {
  id: string;
  question: string;
  follow_up: boolean;
  expected: ExpectedReply;
  outcome: EvaluationOutcome;
  answer: string | null;
  /** Why there is no answer: 'HTTP 502 model-unavailable: …', 'no answer within 180 s', … */
  error: string | null;
  http_status: number | null;
  /** From sending the request to reading the whole answer, measured by this client (waits for a rate limit excluded). */
  latency_ms: number;
  /** Model calls the instance made for this question (the response's `iterations`). */
  model_calls: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** false when the model-call budget ran out (stop_reason max_iterations). */
  finished: boolean | null;
  session_id: string | null;
  /**
   * Amounts and percentages the answer states, with a receipt (verified) or without (unverified),
   * from the response's `figures`; null when the instance returns none (an older version, or ANSWER_CHECK=off).
   */
  figures: { verified: number; unverified: number; unverified_texts: string[] } | null;
  /** Whether the instance sent the first answer back for figures no tool result backed. */
  repaired: boolean | null;
}

export interface EvaluationReport {
  url: string;
  /** The model the instance reports on GET /health (provider, name, base URL without credentials). */
  model: { provider: string; name: string; base_url?: string } | null;
  started_at: string;
  finished_at: string;
  results: QuestionResult[];
  summary: EvaluationSummary;
}

export interface EvaluationOptions {
  /** The instance, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Sent as `Authorization: Bearer <key>` when the instance has API_KEYS. */
  key?: string | undefined;
  questions: EvaluationQuestion[];
  /** Longest a question may take before it counts as an error. */
  timeoutMs: number;
  /** Called after each question, to print progress. */
  onResult?: (result: QuestionResult, position: number) => void;
  /** Called with notes worth showing (a wait for the rate limit). */
  onNotice?: (message: string) => void;
}

const abortedMarker = Symbol.for('analyst.error.evaluation-aborted');

/** The run cannot go on: the service is unreachable, or refuses the key or the host. */
export class EvaluationAbortedError extends AnalystError {
  readonly [abortedMarker] = true;

  static override isInstance(error: unknown): error is EvaluationAbortedError {
    return typeof error === 'object' && error !== null && abortedMarker in error;
  }
}

/** Waits for a 429 are honoured this many times per question, each at most MAX_WAIT_SECONDS. */
const RATE_LIMIT_RETRIES = 5;
const MAX_WAIT_SECONDS = 120;
const HEALTH_TIMEOUT_MS = 10_000;

/** The fields of the ChatResponse (openapi.yaml) the evaluation reads. */
const chatResponseSchema = z.object({
  session_id: z.string(),
  answer: z.string(),
  finished: z.boolean(),
  iterations: z.number(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }),
  figures: z.array(z.object({ text: z.string(), kind: z.string(), receipt: z.object({ kind: z.string() }) })).optional(),
  replaced: z.object({ answer: z.string() }).optional(),
});

const healthSchema = z.object({ model: z.object({ provider: z.string(), name: z.string(), base_url: z.string().optional() }) });

/**
 * Asks every question in order and summarises.
 * @throws EvaluationAbortedError when the service cannot be reached or refuses the key.
 * @example
 * const report = await runEvaluation({ url: 'http://127.0.0.1:3000', questions: loadQuestionSet(projectQuestionFile), timeoutMs: 180_000 });
 * console.log(report.summary.accuracy);
 */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationReport> {
  const url = options.url.replace(/\/+$/, '');
  const startedAt = new Date();
  const model = await checkService(url);
  const results: QuestionResult[] = [];
  let sessionId: string | undefined;
  for (const [index, question] of options.questions.entries()) {
    // A follow-up continues the conversation of the question before it; anything else starts one.
    if (!question.followUp) sessionId = undefined;
    const result = await ask(url, question, sessionId, options);
    sessionId = result.session_id ?? sessionId;
    results.push(result);
    options.onResult?.(result, index + 1);
  }
  return { url, model, started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), results, summary: summarise(results) };
}

/** GET /health: reachable, and which model it runs (null when it does not say). */
async function checkService(url: string): Promise<EvaluationReport['model']> {
  let response: Response;
  try {
    response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
  } catch (error) {
    throw new EvaluationAbortedError(`Cannot reach the service at ${url}: ${networkReason(error)}. Is it running (npm start)? Pass its address with --url.`);
  }
  // 503 is a service that is up but degraded or down: its answers will say how.
  if (!response.ok && response.status !== 503) {
    throw new EvaluationAbortedError(`${url}/health answered HTTP ${response.status}: is ${url} the analyst service? Pass its address with --url.`);
  }
  const health = healthSchema.safeParse(await response.json().catch(() => undefined));
  return health.success ? health.data.model : null;
}

/** One question through POST /chat, waiting out rate limits; never throws except to abort the run. */
async function ask(url: string, question: EvaluationQuestion, sessionId: string | undefined, options: EvaluationOptions): Promise<QuestionResult> {
  const base = {
    id: question.id,
    question: question.question,
    follow_up: question.followUp === true,
    expected: expectedReply(question.expect),
  };
  const failed = (error: string, latency: number, status: number | null = null, session: string | null = null): QuestionResult => ({
    ...base, outcome: 'error', answer: null, error, http_status: status, latency_ms: latency, model_calls: null, input_tokens: null, output_tokens: null, finished: null, session_id: session, figures: null, repaired: null,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const body = JSON.stringify({ message: question.question, ...(sessionId ? { session_id: sessionId } : {}) });
  for (let attempt = 0; ; attempt += 1) {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    let response: Response;
    let payload: unknown;
    try {
      response = await fetch(`${url}/chat`, { method: 'POST', headers, body, signal: AbortSignal.timeout(options.timeoutMs) });
      payload = await response.json().catch(() => undefined);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') return failed(`no answer within ${options.timeoutMs / 1000} s`, elapsed());
      return failed(`cannot reach the service: ${networkReason(error)}`, elapsed());
    }
    const latency = elapsed();
    if (response.status === 401) {
      throw new EvaluationAbortedError(
        options.key
          ? `The service refused the key (HTTP 401): pass one of its API_KEYS with --key.`
          : `The service requires an API key (HTTP 401): pass one of its API_KEYS with --key (or set ANALYST_API_KEY).`,
      );
    }
    if (response.status === 403) throw new EvaluationAbortedError(`The service refused the request (HTTP 403): ${problemText(payload)}`);
    if (response.status === 429 && attempt < RATE_LIMIT_RETRIES) {
      const seconds = Math.min(MAX_WAIT_SECONDS, Math.max(1, Number(response.headers.get('retry-after')) || 5));
      options.onNotice?.(`rate limited (HTTP 429): waiting ${seconds} s as the service asks (Retry-After), then asking '${question.id}' again`);
      await sleep(seconds * 1000);
      continue;
    }
    const session = sessionOf(payload);
    if (!response.ok) return failed(`HTTP ${response.status} ${problemText(payload)}`, latency, response.status, session);
    const chat = chatResponseSchema.safeParse(payload);
    if (!chat.success) return failed(`unexpected response body: ${chat.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`, latency, response.status, session);
    return {
      ...base,
      outcome: outcomeOf(chat.data.answer, question.expect),
      answer: chat.data.answer,
      error: null,
      http_status: response.status,
      latency_ms: latency,
      model_calls: chat.data.iterations,
      input_tokens: chat.data.usage.input_tokens,
      output_tokens: chat.data.usage.output_tokens,
      finished: chat.data.finished,
      session_id: chat.data.session_id,
      figures: figureCounts(chat.data.figures),
      repaired: chat.data.replaced !== undefined,
    };
  }
}

/** Amounts and percentages with and without a receipt (codes, years and periods are not checked). */
function figureCounts(figures: { text: string; kind: string; receipt: { kind: string } }[] | undefined): QuestionResult['figures'] {
  if (!figures) return null;
  const checked = figures.filter((figure) => figure.receipt.kind !== 'not_a_figure');
  const unverified = checked.filter((figure) => figure.receipt.kind === 'unverified').map((figure) => figure.text);
  return { verified: checked.length - unverified.length, unverified: unverified.length, unverified_texts: unverified };
}

function expectedReply(expect: Expectation): ExpectedReply {
  if (expect.kind === 'answer') return { kind: 'answer', figures: expect.figures, ...(expect.mentions ? { mentions: expect.mentions } : {}) };
  return expect.kind === 'knowledge' ? { kind: 'knowledge', cites: expect.cites } : { kind: expect.kind, reason: expect.reason };
}

/** 'model-unavailable: The model provider …' from a problem document (RFC 9457), or what there is. */
function problemText(payload: unknown): string {
  const problem = z.object({ type: z.string().optional(), title: z.string().optional(), detail: z.string().optional() }).safeParse(payload);
  if (!problem.success) return '(no problem document)';
  const kind = problem.data.type?.split('/').pop();
  return [kind, problem.data.detail ?? problem.data.title].filter(Boolean).join(': ') || '(no detail)';
}

/** The session a response names (a problem document carries it too). */
function sessionOf(payload: unknown): string | null {
  const named = z.object({ session_id: z.string() }).safeParse(payload);
  return named.success ? named.data.session_id : null;
}

/** ECONNREFUSED, ENOTFOUND, … rather than undici's bare 'fetch failed'. */
function networkReason(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer within the time limit';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
