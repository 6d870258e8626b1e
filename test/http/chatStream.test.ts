import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listeningServices } from '../support/listeningService.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';
import { postForEvents, type ReceivedEvent } from '../support/sse.ts';
import { until } from '../support/until.ts';

// Streams need a real socket: each test gets a listening service.
const services = listeningServices();
afterEach(() => services.closeAll());
const start = (environment: Record<string, string> = {}) => services.start({ LOG_LEVEL: 'silent', APP_DB: `${temporaryDirectory()}/app.db`, ...environment });

const names = (events: ReceivedEvent[]) => events.map((e) => e.event);
const tokens = (events: ReceivedEvent[]) => events.filter((e) => e.event === 'token').map((e) => e.data.text).join('');

describe('POST /chat streamed, offline model', () => {
  it('streams tool calls, then the answer token by token, then the same body as without streaming', async () => {
    const { url } = await start();
    const question = 'why does FI differ from BPC for company 1000 in December?';
    const { response, events } = await postForEvents(`${url}/chat`, { message: question, stream: true });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const order = names(events);
    expect(order.slice(0, 4)).toEqual(['tool_start', 'tool_result', 'tool_start', 'tool_result']);
    expect(order.filter((n) => n === 'token').length).toBeGreaterThan(10);
    expect(order.at(-1)).toBe('final');
    const final = events.at(-1)!.data;
    expect(tokens(events)).toBe(final.answer);
    expect(final.answer).toContain('110,000.00 EUR');
    expect(events[0]!.data).toMatchObject({ name: 'compare_sources', args: { source_a: 'fi_reporting', source_b: 'bpc_reporting' } });
    expect(events[1]!.data).toMatchObject({ id: events[0]!.data.id, name: 'compare_sources', ok: true, duration_ms: expect.any(Number) });
    expect(Object.keys(final).sort()).toEqual(['answer', 'figures', 'finished', 'iterations', 'session_id', 'stop_reason', 'tool_calls', 'usage']);
    expect(final.tool_calls.map((c: { id: string }) => c.id)).toEqual([events[0]!.data.id, events[2]!.data.id]);

    const plain: any = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: question }) }).then((r) => r.json());
    expect(plain.answer).toBe(final.answer);
  });

  it('streams on Accept: text/event-stream too, and refuses a bad body with a plain 400', async () => {
    const { url } = await start();
    const { events } = await postForEvents(`${url}/chat`, { message: 'Which sources are available?' }, { headers: { accept: 'text/event-stream' } });
    expect(names(events).at(-1)).toBe('final');
    const bad = await fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ message: '' }) });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });
});

describe('POST /chat streamed, OpenAI-compatible model', () => {
  let mock: MockOpenAI;
  beforeAll(async () => {
    mock = await startMockOpenAI();
  });
  afterAll(async () => {
    await mock.close();
  });
  const model = (overrides: Record<string, string> = {}) => ({ OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '0', MODEL_TIMEOUT_MS: '5000', ...overrides });

  it('joins streamed tool-call argument fragments and streams the answer text', async () => {
    mock.reset();
    const { url } = await start(model());
    mock.enqueue(
      { toolCalls: [{ name: 'query_source', arguments: { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } }, id: 'call_1' }] },
      { content: 'FI shows 443,100.00 EUR for company 1000 in December 2024.' },
    );
    const { events } = await postForEvents(`${url}/chat`, { message: 'Total FI for 1000 in Dec 2024?', stream: true });
    expect(names(events)).toEqual(expect.arrayContaining(['tool_start', 'tool_result', 'token', 'final']));
    expect(events.find((e) => e.event === 'tool_result')!.data.result.rows).toEqual([{ currency: 'EUR', amount: 443100 }]);
    expect(tokens(events)).toBe('FI shows 443,100.00 EUR for company 1000 in December 2024.');
    expect(mock.requests[0]!.body.stream).toBe(true);
    expect(events.at(-1)!.data.usage.total_tokens).toBeGreaterThan(0);
  });

  it('turns arguments cut off mid-stream into a structured tool error, not a crash', async () => {
    mock.reset();
    const { url } = await start(model());
    mock.enqueue(
      { toolCalls: [{ name: 'compare_sources', arguments: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount' }, id: 'call_cut' }], streamCutAfter: 4 },
      { content: 'The call was incomplete; here is what I know.' },
    );
    const { events } = await postForEvents(`${url}/chat`, { message: 'Compare FI and BPC', stream: true });
    const result = events.find((e) => e.event === 'tool_result')!.data;
    expect(result.ok).toBe(false);
    expect(['invalid_arguments', 'malformed_arguments']).toContain(result.result.error.code);
    expect(events.at(-1)).toMatchObject({ event: 'final', data: { finished: true, answer: 'The call was incomplete; here is what I know.' } });
  });

  it('ends with an error event when the provider fails', async () => {
    mock.reset();
    const { url } = await start(model());
    mock.enqueue({ status: 500 });
    const { events } = await postForEvents(`${url}/chat`, { message: 'Anything?', stream: true });
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { type: '/problems/model-unavailable', status: 502, session_id: expect.any(String) } });
  });

  it('stops the run when the client disconnects, stores the turn as stopped by the client, and the session takes the next question', async () => {
    mock.reset();
    const { url } = await start(model());
    const ask = (body: Record<string, unknown>): Promise<any> =>
      fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
    mock.enqueue({ content: 'Hello.' });
    const { session_id } = await ask({ message: 'Hi' });
    // One tool call is answered, then the model hangs and the reader presses stop.
    mock.enqueue({ toolCalls: [{ name: 'list_sources', arguments: {}, id: 'call_sources' }] }, { hang: true });
    const controller = new AbortController();
    const first = postForEvents(`${url}/chat`, { message: 'This will hang', session_id, stream: true }, { signal: controller.signal }).catch((error: unknown) => error);
    await until(() => mock.requests.length === 3, 5_000, 'the second model call of the stopped question');
    controller.abort();
    await first;
    // Turns of a session run one at a time: this one could not start if the hanging run were still going.
    mock.enqueue({ content: 'Fresh answer.' });
    const second = await ask({ message: 'Next', session_id });
    expect(second.answer).toBe('Fresh answer.');
    // The stopped turn is kept with its tool result, so the next question continues from it.
    const history = mock.requests[3]!.body.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`);
    expect(history).toContain('user:Hi');
    expect(history).toContain('user:This will hang');
    expect(history.some((line: string) => line.startsWith('tool:'))).toBe(true);
    const stored: any = await fetch(`${url}/sessions/${session_id}`).then((r) => r.json());
    expect(stored.turns.map((turn: { stop_reason: string; finished: boolean }) => [turn.stop_reason, turn.finished])).toEqual([
      ['completed', true],
      ['client_stopped', false],
      ['completed', true],
    ]);
    expect(stored.turns[1]).toMatchObject({ question: 'This will hang', answer: expect.stringContaining('Stopped by the client'), tool_calls: [expect.objectContaining({ name: 'list_sources', ok: true })] });
  });
});
