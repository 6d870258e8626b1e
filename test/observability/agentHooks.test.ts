/**
 * The agent's hooks (questionHooks, as /chat passes them to runAgent): a failed tool call is counted under its error
 * code, a failing model call under its failure kind with the question as an error, and an event
 * stream is counted while it is open. Scripted models, a small Express app, no service.
 */
import { Writable } from 'node:stream';
import { AIMessage } from '@langchain/core/messages';
import express from 'express';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type ChatModelWithTools } from '../../src/agent/runLoop.ts';
import { openEventStream } from '../../src/http/eventStream.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { observeRequests } from '../../src/observability/observe.ts';
import { questionHooks } from '../../src/observability/questionTrace.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

type LogLine = Record<string, any>;

let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;

beforeAll(async () => {
  toolbox = await sampleToolbox();
});

afterAll(() => toolbox?.close());

/** A model answering with the given replies in turn (an Error is thrown). */
function scriptedModel(replies: (AIMessage | Error)[]): ChatModelWithTools {
  let index = 0;
  return {
    invoke: async () => {
      const reply = replies[index++];
      if (!reply) throw new Error('script exhausted');
      if (reply instanceof Error) throw reply;
      return reply;
    },
  } as unknown as ChatModelWithTools;
}

/** An app whose POST /ask runs the agent with `model`; logs go to `lines`. */
function appWith(metrics: Metrics, model: ChatModelWithTools, lines: LogLine[]) {
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
        callback();
      },
    }),
  );
  const app = express();
  app.use(pinoHttp({ logger }));
  app.use(observeRequests(metrics));
  app.post('/ask', async (request, response) => {
    try {
      const run = await runAgent({ model, registry: toolbox.registry, systemPrompt: 'test', history: [], question: 'q', toolContext: { ...toolbox.context, logger: request.log }, hooks: questionHooks({ logger: request.log, metrics, requestId: String(request.id) }) });
      response.json({ iterations: run.iterations, tool_calls: run.toolCalls });
    } catch (error) {
      response.status(502).json({ kind: (error as { kind?: string }).kind });
    }
  });
  return app;
}

async function value(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = metrics.registry.getSingleMetric(name);
  const { values } = await metric!.get();
  return values.find((v) => Object.entries(labels).every(([key, wanted]) => v.labels[key] === wanted))?.value;
}

describe('agent hooks', () => {
  it('counts a failed tool call under its error code (unknown_source) and traces it', async () => {
    const metrics = createMetrics({ provider: 'scripted' });
    const lines: LogLine[] = [];
    const model = scriptedModel([
      new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'query_source', args: { source: 'nowhere' }, type: 'tool_call' }], usage_metadata: { input_tokens: 100, output_tokens: 10, total_tokens: 110 } }),
      new AIMessage({ content: 'No such source.', usage_metadata: { input_tokens: 150, output_tokens: 5, total_tokens: 155 } }),
    ]);
    const response = await supertest(appWith(metrics, model, lines)).post('/ask');
    expect(response.status).toBe(200);
    expect(await value(metrics, 'tool_calls_total', { tool: 'query_source', outcome: 'unknown_source' })).toBe(1);
    expect(await value(metrics, 'model_calls_total', { provider: 'scripted', outcome: 'ok' })).toBe(2);
    expect(await value(metrics, 'model_tokens_total', { kind: 'input' })).toBe(250);
    expect(await value(metrics, 'model_tokens_total', { kind: 'output' })).toBe(15);
    expect(await value(metrics, 'questions_total', { finished: 'true', stop_reason: 'completed' })).toBe(1);
    const trace = lines.find((line) => line.msg === 'trace')!;
    expect(trace.steps).toMatchObject([
      { type: 'model', outcome: 'ok', input_tokens: 100, output_tokens: 10, tool_calls: ['query_source'] },
      { type: 'tool', tool: 'query_source', tool_call_id: 'call_1', outcome: 'unknown_source' },
      { type: 'model', outcome: 'ok', tool_calls: [] },
    ]);
    expect(trace.request_id).toBe(String(trace.req.id));
  });

  it('counts a failing model call under its failure kind and the question as an error, with a trace line', async () => {
    const metrics = createMetrics({ provider: 'scripted' });
    const lines: LogLine[] = [];
    const response = await supertest(appWith(metrics, scriptedModel([new Error('connect ECONNREFUSED 127.0.0.1:1')]), lines)).post('/ask');
    expect(response.status).toBe(502);
    const kind = response.body.kind as string;
    expect(kind).toEqual(expect.any(String));
    expect(await value(metrics, 'model_calls_total', { outcome: kind })).toBe(1);
    expect(await value(metrics, 'questions_total', { finished: 'false', stop_reason: 'error' })).toBe(1);
    const trace = lines.find((line) => line.msg === 'trace')!;
    expect(trace).toMatchObject({ finished: false, stop_reason: 'error', error: kind, iterations: 1, steps: [{ type: 'model', outcome: kind }] });
  });

  it('counts an event stream while it is open', async () => {
    const metrics = createMetrics({ provider: 'scripted' });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const streamOpened = new Promise<void>((resolve) => (opened = resolve));
    const app = express();
    app.use(observeRequests(metrics));
    app.get('/stream', async (_request, response) => {
      const events = openEventStream(response);
      opened();
      await released;
      events.final({ done: true });
    });
    const pending = supertest(app).get('/stream').then((r) => r);
    await streamOpened;
    expect(await value(metrics, 'sse_streams_active')).toBe(1);
    release();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await value(metrics, 'sse_streams_active')).toBe(0);
    expect((await metrics.exposition()).text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/stream",status="200"\} 1$/m);
  });
});
