/**
 * GET /metrics and the per-question trace, against the real service (offline model, temp APP_DB):
 * after a few /chat, /tools and /sessions requests the Prometheus text holds the expected series
 * with plausible values, and every log line of one question carries its request id.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { postForEvents } from '../support/sse.ts';

type LogLine = Record<string, any>;

let service: Service;
let api: ReturnType<typeof supertest>;
const lines: LogLine[] = [];

/** A pino logger writing JSON lines into `lines`. */
function capturingLogger() {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
      callback();
    },
  });
  return pino({ level: 'info' }, stream);
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const response = await api.get('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return response.text;
}

beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'info', MODEL_PROVIDER: 'offline', APP_DB: path.join(mkdtempSync(path.join(os.tmpdir(), 'metrics-')), 'app.db') } as NodeJS.ProcessEnv);
  service = await createService(config, capturingLogger());
  api = supertest(service.app);
});

afterAll(async () => {
  await service?.close();
});

describe('GET /metrics', () => {
  let text: string;
  let sessionId: string;

  beforeAll(async () => {
    const chat = await api.post('/chat').send({ message: 'Total FI for 1000 in Dec 2024?' });
    expect(chat.status).toBe(200);
    sessionId = chat.body.session_id;
    expect((await api.post('/chat').send({ message: 'Which sources are available?', session_id: sessionId })).status).toBe(200);
    expect((await api.post('/tools/list_sources').send({})).status).toBe(200);
    expect((await api.post('/tools/query_source').send({ source: 'nowhere' })).status).toBe(422);
    expect((await api.get(`/sessions/${sessionId}`)).status).toBe(200);
    expect((await api.get(`/sessions/${sessionId}`)).status).toBe(200);
    expect((await api.get('/nowhere/at/all')).status).toBe(404);
    text = await scrape();
  });

  it('times requests by method, route pattern and status, never the raw URL', () => {
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/chat",status="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/sessions/:id",status="200"}')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/tools/:name",status="200"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="POST",route="/tools/:name",status="422"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).not.toContain(sessionId);
    expect(text).not.toContain('/nowhere');
    const sum = sample(text, 'http_request_duration_seconds_sum{method="POST",route="/chat",status="200"}')!;
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(60);
  });

  it('counts model calls, tokens, iterations and questions', () => {
    const modelCalls = sample(text, 'model_calls_total{provider="offline",outcome="ok"}')!;
    expect(modelCalls).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'model_call_duration_seconds_count{provider="offline"}')).toBe(modelCalls);
    expect(sample(text, 'model_tokens_total{provider="offline",kind="input"}')).toBeGreaterThan(0);
    expect(sample(text, 'model_tokens_total{provider="offline",kind="output"}')).toBeGreaterThan(0);
    expect(sample(text, 'questions_total{finished="true",stop_reason="completed"}')).toBe(2);
    expect(sample(text, 'agent_iterations_count')).toBe(2);
    expect(sample(text, 'agent_iterations_sum')).toBe(modelCalls);
  });

  it("counts the agent's tool calls by tool and outcome, with durations", () => {
    const ok = text.split('\n').filter((l) => l.startsWith('tool_calls_total{') && l.includes('outcome="ok"'));
    expect(ok.length).toBeGreaterThan(0);
    const total = ok.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    const durations = text.split('\n').filter((l) => l.startsWith('tool_call_duration_seconds_count{'));
    expect(durations.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)).toBe(total);
    // POST /tools runs are HTTP requests, not agent tool calls.
    expect(text).not.toContain('outcome="unknown_source"');
  });

  it('includes the default process metrics and no open streams', () => {
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(sample(text, 'sse_streams_active')).toBe(0);
  });
});

describe('active streams', () => {
  it('returns to 0 after a streamed chat ends', async () => {
    const server = service.app.listen(0);
    try {
      const { port } = server.address() as { port: number };
      const { events } = await postForEvents(`http://127.0.0.1:${port}/chat`, { message: 'Total FI for 1000 in Dec 2024?', stream: true });
      expect(events.at(-1)?.event).toBe('final');
      const text = await scrape();
      expect(sample(text, 'sse_streams_active')).toBe(0);
      expect(sample(text, 'questions_total{finished="true",stop_reason="completed"}')).toBe(3);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the per-question trace', () => {
  it('logs one trace line per question, and every line of the question carries its request id', async () => {
    const response = await api.post('/chat').set('x-request-id', 'trace-test-1').send({ message: 'Total FI for 1000 in Dec 2024?' });
    expect(response.status).toBe(200);
    const mine = lines.filter((line) => line.req?.id === 'trace-test-1' || line.request_id === 'trace-test-1');
    const traces = mine.filter((line) => line.msg === 'trace');
    expect(traces).toHaveLength(1);
    const trace = traces[0]!;
    expect(trace).toMatchObject({ request_id: 'trace-test-1', session_id: response.body.session_id, finished: true, stop_reason: 'completed', iterations: response.body.iterations });
    expect(trace.duration_ms).toBeGreaterThan(0);
    const models = trace.steps.filter((step: LogLine) => step.type === 'model');
    const tools = trace.steps.filter((step: LogLine) => step.type === 'tool');
    expect(models).toHaveLength(response.body.iterations);
    expect(models.every((step: LogLine) => step.outcome === 'ok' && step.duration_ms >= 0 && step.input_tokens > 0)).toBe(true);
    expect(tools.map((step: LogLine) => step.tool_call_id)).toEqual(response.body.tool_calls.map((call: LogLine) => call.id));
    expect(tools.every((step: LogLine) => step.outcome === 'ok' && typeof step.duration_ms === 'number')).toBe(true);
    // Every model call and tool call line of this question (and the request line) is tied to the request id.
    const modelLines = lines.filter((line) => line.msg === 'model call' && line.session_id === response.body.session_id);
    const toolLines = lines.filter((line) => line.msg === 'tool call' && line.session_id === response.body.session_id);
    expect(modelLines.length).toBe(models.length);
    expect(toolLines.length).toBe(tools.length);
    for (const line of [...modelLines, ...toolLines, trace]) expect(line.req?.id).toBe('trace-test-1');
    expect(mine.some((line) => line.msg === 'request completed')).toBe(true);
  });
});
