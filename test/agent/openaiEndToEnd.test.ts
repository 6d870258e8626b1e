/**
 * End to end against a scripted OpenAI-compatible server: POST /chat → agent loop → real
 * ChatOpenAI client (retries, timeouts, tool-call parsing) → skill registry → data_analyst
 * tools over the sample database. Each test asserts what a user sees (the HTTP response) and
 * what the model was sent (the recorded requests).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mockOpenAI.ts';

// ---------------------------------------------------------------------------------------------
// Wire shapes (what the model receives), typed loosely on purpose: these are assertions on JSON.

interface WireToolCall {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}
interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}
interface WireTool {
  type: string;
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

interface ChatBody {
  session_id: string;
  answer: string;
  finished: boolean;
  stop_reason: string;
  iterations: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tool_calls: { id: string; name: string; args: unknown; ok: boolean; result: any; duration_ms: number }[];
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
}

/** Every tool the repository's skills declare, plus the built-in load_skill. */
const DATA_ANALYST_TOOLS = ['list_sources', 'query_source', 'compare_sources', 'list_differences', 'explain_difference'];
const STACK_TRACE = /at .*\.ts:\d+/;

let mock: MockOpenAI;
const services: Service[] = [];
/** Every response body of this file, for the stack-trace check. */
const seenBodies: { label: string; body: unknown; text: string }[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
});
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

/** A service wired to the mock; `overrides` replace the default environment values. */
async function buildService(overrides: Record<string, string> = {}): Promise<Service> {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test-key',
    OPENAI_MODEL: 'mock-model',
    MODEL_MAX_RETRIES: '1',
    MODEL_TIMEOUT_MS: '5000',
    CHAT_DEADLINE_MS: '20000',
    // The scripted answers state figures of no tool result ("FI shows 443,100.00 EUR." with no call):
    // flagged, not sent back for repair, so each test's model calls stay as scripted (the check: chatFigures.test.ts).
    ANSWER_CHECK: 'flag',
    ...overrides,
  } as NodeJS.ProcessEnv);
  const service = await createService(config, silentLogger());
  services.push(service);
  return service;
}

/** POST /chat, recording the body and checking it carries no stack trace. */
async function chat(service: Service, body: Record<string, unknown>, label = String(body.message)) {
  const response = await request(service.app).post('/chat').set('content-type', 'application/json').send(body);
  seenBodies.push({ label, body: response.body, text: response.text });
  expect(JSON.stringify(response.body)).not.toMatch(STACK_TRACE);
  expect(response.text).not.toMatch(STACK_TRACE);
  return response;
}

function requestAt(index: number): RecordedRequest {
  const recorded = mock.requests[index];
  if (!recorded) throw new Error(`no model request #${index}; ${mock.requests.length} were made`);
  return recorded;
}

function messagesOf(index: number): WireMessage[] {
  return requestAt(index).body.messages as WireMessage[];
}

function lastOfRole(messages: WireMessage[], role: WireMessage['role']): WireMessage {
  const found = [...messages].reverse().find((m) => m.role === role);
  if (!found) throw new Error(`no ${role} message in ${JSON.stringify(messages.map((m) => m.role))}`);
  return found;
}

function parseToolContent(message: WireMessage): unknown {
  expect(typeof message.content).toBe('string');
  return JSON.parse(message.content as string);
}

/**
 * What every OpenAI-compatible endpoint requires of a history: one system message first, each
 * assistant tool call answered by a tool message with its id right after the assistant
 * message (and nothing else in between), and no stray tool messages. A request that opens a
 * new question (`newQuestion`) ends on the user message, not right after a tool message; a
 * request inside a turn ends on the tool results the model is to read.
 */
function expectValidSequence(messages: WireMessage[], expected: 'newQuestion' | 'midTurn'): void {
  expect(messages[0]?.role).toBe('system');
  expect(messages.slice(1).some((m) => m.role === 'system')).toBe(false);
  let i = 1;
  while (i < messages.length) {
    const message = messages[i]!;
    expect(message.role, `message ${i} is an unanswered tool message`).not.toBe('tool');
    i += 1;
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const ids = message.tool_calls.map((call) => call.id);
    for (const id of ids) expect(typeof id === 'string' && id.length > 0, `assistant tool call id ${String(id)}`).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const answers = messages.slice(i, i + ids.length);
    expect(answers.map((m) => m.role)).toEqual(ids.map(() => 'tool'));
    expect(answers.map((m) => m.tool_call_id)).toEqual(ids);
    i += ids.length;
  }
  const last = messages[messages.length - 1]!;
  if (expected === 'midTurn') {
    expect(last.role).toBe('tool');
    return;
  }
  expect(last.role).toBe('user');
  expect(messages[messages.length - 2]?.role).not.toBe('tool');
}

/** The assistant message with tool calls in a request, and the tool messages that follow it. */
function toolExchange(messages: WireMessage[]): { assistant: WireMessage; tools: WireMessage[] } {
  const index = messages.findIndex((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
  expect(index).toBeGreaterThan(0);
  const assistant = messages[index]!;
  const tools = messages.slice(index + 1, index + 1 + assistant.tool_calls!.length);
  return { assistant, tools };
}

const fiVsBpc1000Dec = {
  source_b: 'bpc_reporting',
  measure: 'amount',
  filters: { company: '1000', period: '2024012' },
};

describe('POST /chat against an OpenAI-compatible provider', () => {
  it('recovers from a wrong source name using the error the tool sent back (closest match)', async () => {
    const service = await buildService();
    mock.enqueue(
      { toolCalls: [{ name: 'compare_sources', arguments: { source_a: 'fi_reports', ...fiVsBpc1000Dec }, id: 'call_wrong' }] },
      { toolCalls: [{ name: 'compare_sources', arguments: { source_a: 'fi_reporting', ...fiVsBpc1000Dec }, id: 'call_right' }] },
      { content: 'fi_reporting shows 443,100.00 EUR, bpc_reporting 333,100.00 EUR: a major difference of 110,000.00 EUR.' },
    );

    const response = await chat(service, { message: 'Does FI reconcile with BPC for company 1000 in December 2024?' });

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body).toMatchObject({ finished: true, stop_reason: 'completed', iterations: 3 });
    expect(body.answer).toContain('110,000.00 EUR');
    expect(body.tool_calls).toHaveLength(2);
    expect(body.tool_calls[0]).toMatchObject({ id: 'call_wrong', name: 'compare_sources', ok: false, result: { error: { code: 'unknown_source', closest: 'fi_reporting' } } });
    expect(body.tool_calls[1]).toMatchObject({ id: 'call_right', name: 'compare_sources', ok: true });
    expect(body.tool_calls[1]!.result.summary.totals[0]).toMatchObject({ currency: 'EUR', total_a: 443100, total_b: 333100, difference: 110000 });
    expect(body.usage.total_tokens).toBeGreaterThan(0);

    // What the model saw after its first attempt: the structured error, with the suggestion.
    expect(mock.requests).toHaveLength(3);
    const second = messagesOf(1);
    const errorMessage = lastOfRole(second, 'tool');
    expect(errorMessage.tool_call_id).toBe('call_wrong');
    expect(errorMessage.content).toContain('"code":"unknown_source"');
    expect(errorMessage.content).toContain('"closest":"fi_reporting"');
    expect(parseToolContent(errorMessage)).toMatchObject({
      error: { code: 'unknown_source', closest: 'fi_reporting', choices: expect.arrayContaining(['fi_reporting', 'bpc_reporting', 'consolidation_mart']) },
    });
    // ... and the successful comparison in the third request.
    const third = messagesOf(2);
    const comparison = lastOfRole(third, 'tool');
    expect(comparison.tool_call_id).toBe('call_right');
    expect(parseToolContent(comparison)).toMatchObject({ summary: { totals: [{ total_a: 443100, total_b: 333100, difference: 110000 }] } });
    expect(mock.pending()).toBe(0);
  });

  it('answers malformed tool arguments with malformed_arguments and keeps going', async () => {
    const service = await buildService();
    mock.enqueue(
      { toolCalls: [{ name: 'query_source', arguments: '{"source": "fi_rep', id: 'call_bad' }] },
      { content: 'Sorry, I could not read that; here is what I can say.' },
    );
    // @langchain/core warns on console when no raw tool call parsed; keep the output clean.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const response = await chat(service, { message: 'How much revenue did FI post?' }).finally(() => warn.mockRestore());

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body).toMatchObject({ finished: true, stop_reason: 'completed', iterations: 2, answer: 'Sorry, I could not read that; here is what I can say.' });
    expect(body.tool_calls).toHaveLength(1);
    expect(body.tool_calls[0]).toMatchObject({ id: 'call_bad', name: 'query_source', ok: false, args: '{"source": "fi_rep', result: { error: { code: 'malformed_arguments' } } });

    expect(mock.requests).toHaveLength(2);
    const messages = messagesOf(1);
    const { assistant, tools } = toolExchange(messages);
    expect(assistant.tool_calls).toHaveLength(1);
    expect(assistant.tool_calls![0]).toMatchObject({ id: 'call_bad', type: 'function', function: { name: 'query_source' } });
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ role: 'tool', tool_call_id: 'call_bad' });
    expect(parseToolContent(tools[0]!)).toMatchObject({ error: { code: 'malformed_arguments', hint: expect.any(String) } });
    expectValidSequence(messages, 'midTurn');
  });

  it('answers every call of a turn that mixes a malformed and a valid call, in the order the model sent them', async () => {
    const service = await buildService();
    mock.enqueue(
      {
        toolCalls: [
          { name: 'query_source', arguments: '{"source": "fi_rep', id: 'call_first_bad' },
          { name: 'list_sources', arguments: {}, id: 'call_second_ok' },
        ],
      },
      { content: 'Listed the sources.' },
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const response = await chat(service, { message: 'What sources are there?' }).finally(() => warn.mockRestore());

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body).toMatchObject({ finished: true, iterations: 2, answer: 'Listed the sources.' });
    const byId = new Map(body.tool_calls.map((c) => [c.id, c]));
    expect([...byId.keys()]).toEqual(['call_first_bad', 'call_second_ok']);
    expect(byId.get('call_first_bad')).toMatchObject({ name: 'query_source', ok: false, result: { error: { code: 'malformed_arguments' } } });
    expect(byId.get('call_second_ok')).toMatchObject({ name: 'list_sources', ok: true });

    const messages = messagesOf(1);
    const { assistant, tools } = toolExchange(messages);
    const sentIds = assistant.tool_calls!.map((c) => c.id);
    expect(sentIds).toEqual(['call_first_bad', 'call_second_ok']);
    expect(tools.map((m) => m.tool_call_id)).toEqual(sentIds);
    expect(body.tool_calls.map((c) => c.id)).toEqual(sentIds);
    expectValidSequence(messages, 'midTurn');
  });

  it('answers arguments that are JSON but not an object with invalid_arguments', async () => {
    const service = await buildService();
    mock.enqueue({ toolCalls: [{ name: 'query_source', arguments: '"fi_reporting"', id: 'call_string' }] }, { content: 'Retrying differently.' });
    const response = await chat(service, { message: 'Total of FI?' });
    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body.tool_calls[0]).toMatchObject({ id: 'call_string', ok: false, result: { error: { code: 'invalid_arguments' } } });
    expect(body.tool_calls[0]!.result.error.message).toMatch(/expected object/);
  });

  it('still reports the findings when the model ends with an empty answer', async () => {
    const service = await buildService();
    mock.enqueue({ toolCalls: [{ name: 'list_sources', arguments: {}, id: 'call_list' }] }, { content: '' });
    const response = await chat(service, { message: 'What is there?' });
    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body.finished).toBe(true);
    expect(body.answer).toContain('The model finished without writing an answer.');
    expect(body.answer).toContain('list_sources: 4 sources (fi_reporting, consolidation_mart, bpc_reporting, fi_acquisition)');
  });

  it('answers an unknown tool name with unknown_tool and the valid choices', async () => {
    const service = await buildService();
    mock.enqueue({ toolCalls: [{ name: 'drop_tables', arguments: { confirm: true }, id: 'call_drop' }] }, { content: 'I can only read data.' });

    const response = await chat(service, { message: 'Delete everything.' });

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body).toMatchObject({ finished: true, stop_reason: 'completed', iterations: 2, answer: 'I can only read data.' });
    expect(body.tool_calls[0]).toMatchObject({ name: 'drop_tables', ok: false, result: { error: { code: 'unknown_tool' } } });
    expect(body.tool_calls[0]!.result.error.choices).toEqual(expect.arrayContaining([...DATA_ANALYST_TOOLS, 'load_skill']));

    const tool = lastOfRole(messagesOf(1), 'tool');
    expect(tool.tool_call_id).toBe('call_drop');
    const sent = parseToolContent(tool) as { error: { code: string; choices: string[] } };
    expect(sent.error.code).toBe('unknown_tool');
    expect(sent.error.choices).toEqual(expect.arrayContaining([...DATA_ANALYST_TOOLS, 'load_skill']));
  });

  it('answers two tool calls of one turn in order, each with its own tool_call_id', async () => {
    const service = await buildService();
    mock.enqueue(
      {
        toolCalls: [
          { name: 'list_sources', arguments: {}, id: 'call_list' },
          { name: 'query_source', arguments: { source: 'fi_reporting', measures: ['amount'], filters: { company: '1000', period: '2024012' } }, id: 'call_query' },
        ],
      },
      { content: 'FI shows 443,100.00 EUR for company 1000 in December 2024.' },
    );

    const response = await chat(service, { message: 'What does FI show for 1000 in December?' });

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    expect(body).toMatchObject({ finished: true, iterations: 2 });
    expect(body.tool_calls.map((c) => [c.id, c.name, c.ok])).toEqual([
      ['call_list', 'list_sources', true],
      ['call_query', 'query_source', true],
    ]);
    expect(body.tool_calls[1]!.result.rows).toEqual([expect.objectContaining({ currency: 'EUR', amount: 443100 })]);

    const messages = messagesOf(1);
    const { assistant, tools } = toolExchange(messages);
    expect(assistant.tool_calls!.map((c) => [c.id, c.function.name])).toEqual([
      ['call_list', 'list_sources'],
      ['call_query', 'query_source'],
    ]);
    expect(JSON.parse(assistant.tool_calls![1]!.function.arguments)).toEqual({ source: 'fi_reporting', measures: ['amount'], filters: { company: '1000', period: '2024012' } });
    expect(tools.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_list'],
      ['tool', 'call_query'],
    ]);
    expect(parseToolContent(tools[0]!)).toMatchObject({ sources: expect.any(Array) });
    expect(parseToolContent(tools[1]!)).toMatchObject({ source: 'fi_reporting', rows: [{ amount: 443100 }] });
    expectValidSequence(messages, 'midTurn');
  });

  it('gives tool calls without ids generated ids that pair the calls with their results', async () => {
    const service = await buildService();
    mock.enqueue(
      {
        toolCalls: [
          { name: 'list_sources', arguments: {}, id: null },
          { name: 'query_source', arguments: { source: 'bpc_reporting', filters: { company: '1000', period: '2024012' } }, id: null },
        ],
      },
      { content: 'BPC shows 333,100.00 EUR.' },
    );

    const response = await chat(service, { message: 'And BPC?' });

    expect(response.status).toBe(200);
    const body = response.body as ChatBody;
    const ids = body.tool_calls.map((c) => c.id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^\S+$/);
    expect(new Set(ids).size).toBe(2);

    const messages = messagesOf(1);
    const { assistant, tools } = toolExchange(messages);
    const sentIds = assistant.tool_calls!.map((c) => c.id);
    expect(sentIds).toEqual(ids);
    expect(tools.map((m) => m.tool_call_id)).toEqual(ids);
    expect(parseToolContent(tools[1]!)).toMatchObject({ source: 'bpc_reporting', rows: [{ amount: 333100 }] });
    expectValidSequence(messages, 'midTurn');
  });

  it('retries a 429 that carries retry-after and answers normally', async () => {
    const service = await buildService();
    mock.enqueue({ status: 429, headers: { 'retry-after': '0' } }, { content: 'After the retry.' });

    const response = await chat(service, { message: 'Hello?' });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ answer: 'After the retry.', finished: true, iterations: 1 });
    expect(mock.requests).toHaveLength(2);
    expect(requestAt(1).body).toEqual(requestAt(0).body);
  });

  it('stops after 10 model calls, says so, and the session continues with a valid history', async () => {
    const service = await buildService();
    const turns = Array.from({ length: 11 }, (_, n) => ({
      toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } }, id: `call_loop_${n + 1}` }],
    }));
    mock.enqueue(...turns);

    const first = await chat(service, { message: 'Keep digging into FI 1000 December.' });

    expect(first.status).toBe(200);
    const body = first.body as ChatBody;
    expect(mock.requests).toHaveLength(10);
    expect(mock.pending()).toBe(1);
    expect(body).toMatchObject({ finished: false, stop_reason: 'max_iterations', iterations: 10 });
    expect(body.tool_calls).toHaveLength(10);
    expect(body.tool_calls.every((c) => c.ok)).toBe(true);
    expect(body.answer).toMatch(/limit/i);
    expect(body.answer).toContain('10 model calls');
    // The findings are summarised, not lost.
    expect(body.answer).toContain('query_source fi_reporting: 1 row of amount by currency');
    // Each request of the run was well formed, and the 10th saw 9 answered calls.
    expectValidSequence(messagesOf(0), 'newQuestion');
    for (let k = 1; k < 10; k++) expectValidSequence(messagesOf(k), 'midTurn');
    expect(messagesOf(9).filter((m) => m.role === 'tool')).toHaveLength(9);

    mock.reset();
    mock.enqueue({ content: 'Continuing: the duplicate load explains 110,000.00 EUR.' });
    const followUp = await chat(service, { message: 'Summarise what you found.', session_id: body.session_id });

    expect(followUp.status).toBe(200);
    expect(followUp.body).toMatchObject({ session_id: body.session_id, finished: true, iterations: 1, answer: 'Continuing: the duplicate load explains 110,000.00 EUR.' });
    expect(mock.requests).toHaveLength(1);
    const messages = messagesOf(0);
    expectValidSequence(messages, 'newQuestion');
    expect(messages[messages.length - 1]).toMatchObject({ role: 'user', content: 'Summarise what you found.' });
    // The previous turn is all there: question, 10 calls with their results, the limit message.
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(10);
    const limitMessage = messages[messages.length - 2]!;
    expect(limitMessage.role).toBe('assistant');
    expect(limitMessage.content).toBe(body.answer);
  });

  it('answers 502 model-unavailable when the provider keeps failing, then recovers', async () => {
    const service = await buildService({ MODEL_MAX_RETRIES: '1' });
    mock.enqueue({ status: 500 }, { status: 500 });

    const failed = await chat(service, { message: 'Anything?' });

    expect(failed.status).toBe(502);
    expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(failed.body).toMatchObject({ type: '/problems/model-unavailable', status: 502, reason: 'unavailable' });
    expect(typeof failed.body.session_id).toBe('string');
    // One try and one retry (MODEL_MAX_RETRIES=1), then the answer: not a third call.
    expect(mock.requests).toHaveLength(2);

    mock.enqueue({ content: 'Back online.' });
    const recovered = await chat(service, { message: 'Anything now?' });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ answer: 'Back online.', finished: true });
    expect(recovered.body.session_id).not.toBe(failed.body.session_id);
    expect(mock.requests).toHaveLength(3);
  });

  it('keeps the question and the tool results of a turn the provider failed, and the next turn continues from them', async () => {
    const service = await buildService({ MODEL_MAX_RETRIES: '0' });
    mock.enqueue({ toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } }, id: 'call_kept' }] }, { status: 500 });
    const failed = await chat(service, { message: 'Total FI for 1000 in December?' });
    expect(failed.status).toBe(502);
    const sessionId = (failed.body as { session_id: string }).session_id;
    const history = await request(service.app).get(`/sessions/${sessionId}`);
    expect(history.body.turns).toHaveLength(1);
    expect(history.body.turns[0]).toMatchObject({ question: 'Total FI for 1000 in December?', finished: false, stop_reason: 'provider_error', tool_calls: [{ id: 'call_kept', ok: true }] });
    expect(history.body.turns[0].answer).toMatch(/model provider failed/);

    mock.enqueue({ content: 'It was 443,100.00 EUR.' });
    const next = await chat(service, { message: 'So what was it?', session_id: sessionId });
    expect(next.status).toBe(200);
    const sent = messagesOf(mock.requests.length - 1);
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(String(sent[3]!.content)).toContain('443100');
  });

  it('answers 504 model-timeout when the provider hangs (MODEL_TIMEOUT_MS, not a hang)', async () => {
    const service = await buildService({ MODEL_TIMEOUT_MS: '1000', MODEL_MAX_RETRIES: '0' });
    mock.enqueue({ hang: true });

    // The provider never answers: only MODEL_TIMEOUT_MS can end this before the test's timeout.
    const response = await chat(service, { message: 'Are you there?' });

    expect(response.status).toBe(504);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: '/problems/model-timeout', status: 504, reason: 'timeout' });
    expect(mock.requests).toHaveLength(1);
  });

  it('answers 503 model-rate-limited at once for a 429 without retry-after (not retried)', async () => {
    const service = await buildService({ MODEL_MAX_RETRIES: '1' });
    mock.enqueue({ status: 429 }, { content: 'never sent' });

    const response = await chat(service, { message: 'Busy?' });

    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: '/problems/model-rate-limited', status: 503, reason: 'rate_limited' });
    expect(mock.requests).toHaveLength(1);
    expect(mock.pending()).toBe(1);
  });

  it('bounds the whole question by CHAT_DEADLINE_MS even when the model timeout is longer', async () => {
    // A model timeout longer than the test's: only the deadline can end the question in time.
    const service = await buildService({ CHAT_DEADLINE_MS: '1000', MODEL_TIMEOUT_MS: '120000', MODEL_MAX_RETRIES: '1' });
    mock.enqueue({ hang: true });

    const response = await chat(service, { message: 'Still there?' });

    expect(response.status).toBe(504);
    expect(response.body).toMatchObject({ type: '/problems/model-timeout', reason: 'timeout' });
    // Ended by the deadline, not by a model timeout followed by the retry.
    expect(mock.requests).toHaveLength(1);
  });

  it('sends the earlier question and answer with a follow-up; an unknown session is a 404', async () => {
    const service = await buildService();
    mock.enqueue({ content: 'FI shows 443,100.00 EUR.' });
    const first = await chat(service, { message: 'What does FI show for 1000 in December 2024?' });
    expect(first.status).toBe(200);

    mock.enqueue({ content: 'BPC shows 333,100.00 EUR.' });
    const second = await chat(service, { message: 'And BPC?', session_id: first.body.session_id });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ session_id: first.body.session_id, answer: 'BPC shows 333,100.00 EUR.' });

    expect(mock.requests).toHaveLength(2);
    const messages = messagesOf(1);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expectValidSequence(messages, 'newQuestion');
    expect(messages.slice(1)).toEqual([
      expect.objectContaining({ role: 'user', content: 'What does FI show for 1000 in December 2024?' }),
      expect.objectContaining({ role: 'assistant', content: 'FI shows 443,100.00 EUR.' }),
      expect.objectContaining({ role: 'user', content: 'And BPC?' }),
    ]);

    const unknown = await chat(service, { message: 'Hello again', session_id: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.body).toMatchObject({ type: '/problems/session-not-found', status: 404 });
    expect(mock.requests).toHaveLength(2);
  });

  it('lists each skill in one line of the system prompt, and binds a skill\'s tools from the call after load_skill', async () => {
    const service = await buildService();
    mock.enqueue({ toolCalls: [{ name: 'load_skill', arguments: { name: 'data_analyst' }, id: 'call_load' }] }, { content: 'Hi.' });
    const response = await chat(service, { message: 'What can you do?' });
    expect(response.status).toBe(200);

    const sent = requestAt(0).body as { model: string; messages: WireMessage[]; tools: WireTool[] };
    expect(sent.model).toBe('mock-model');
    const system = sent.messages[0]!;
    expect(system.role).toBe('system');
    const skillMd = readFileSync(path.join(projectRoot, 'skills/data_analyst/SKILL.md'), 'utf8');
    const instructions = skillMd.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '').trim();
    expect(instructions.length).toBeGreaterThan(100);
    // The prompt does not grow with every skill's instructions: they come through load_skill.
    expect(system.content).not.toContain(instructions);
    expect(system.content).toContain('data_analyst');
    const loaded = parseToolContent(lastOfRole(messagesOf(1), 'tool')) as { instructions: string };
    expect(loaded.instructions).toBe(instructions);

    // The first call carries the built-in tool and the always-bound list_sources; the next one adds data_analyst's tools, in order.
    const second = requestAt(1).body as { messages: WireMessage[]; tools: WireTool[] };
    expect(sent.tools.map((t) => t.function.name)).toEqual(['load_skill', 'list_sources']);
    expect(second.tools.map((t) => t.function.name)).toEqual(['load_skill', ...DATA_ANALYST_TOOLS]);
    // The prefix a provider caches stays the same: the system prompt, and the first tools in the same order.
    expect(second.messages[0]).toEqual(system);
    for (const tool of second.tools) {
      expect(tool.type).toBe('function');
      expect(tool.function.description?.length ?? 0).toBeGreaterThan(20);
      const parameters = tool.function.parameters;
      expect(parameters.type).toBe('object');
      expect(typeof parameters.properties).toBe('object');
      expect(parameters).toEqual(service.registry.get(tool.function.name)!.modelDefinition.function.parameters);
      // Validation-only keywords stay on the service's side (zod): the model is sent the shape.
      expect(JSON.stringify(parameters)).not.toMatch(/maxLength|minItems|propertyNames/);
    }
    const byName = new Map(second.tools.map((t) => [t.function.name, t.function.parameters]));
    expect(byName.get('query_source')!.required).toEqual(['source']);
    expect(byName.get('compare_sources')!.required).toEqual(expect.arrayContaining(['source_a', 'source_b', 'measure']));
    expect(Object.keys(byName.get('list_sources')!.properties as object)).toEqual([]);
  });

  it('runs a tool the model calls before loading its skill, binds the skill from the next call, and keeps it bound in a follow-up', async () => {
    const service = await buildService();
    mock.enqueue({ toolCalls: [{ name: 'find_duplicates', arguments: { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } }, id: 'call_dupes' }] }, { content: 'Four lines were loaded twice.' });
    const first = await chat(service, { message: 'Are there duplicates in FI for 1000 in December?' });
    expect(first.status).toBe(200);
    expect(first.body.tool_calls[0]).toMatchObject({ name: 'find_duplicates', ok: true });
    const names = (index: number) => (requestAt(index).body as { tools: WireTool[] }).tools.map((t) => t.function.name);
    expect(names(0)).toEqual(['load_skill', 'list_sources']);
    expect(names(1)).toEqual(['load_skill', 'list_sources', ...service.registry.skill('data_quality')!.tools.map((t) => t.name)]);

    mock.enqueue({ content: 'Still bound.' });
    const followUp = await chat(service, { message: 'And in November?', session_id: first.body.session_id });
    expect(followUp.status).toBe(200);
    expect(names(2)).toEqual(names(1));
    expect(followUp.body.usage.calls).toEqual([expect.objectContaining({ tools: names(2).length, tool_definition_tokens: expect.any(Number), prompt_tokens: expect.any(Number) })]);
  });

  it('never put a stack trace in any response of this file', () => {
    expect(seenBodies.length).toBeGreaterThanOrEqual(17);
    for (const { label, body, text } of seenBodies) {
      expect(JSON.stringify(body), label).not.toMatch(STACK_TRACE);
      expect(text, label).not.toMatch(STACK_TRACE);
    }
  });
});
