import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { promptTokens, startMockOpenAI, toolDefinitionTokens, type MockOpenAI } from './mockOpenAI.ts';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get the weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
  },
};

let mock: MockOpenAI;

function client(maxRetries = 0): ChatOpenAI {
  return new ChatOpenAI({ model: 'mock-model', apiKey: 'test-key', configuration: { baseURL: mock.url }, maxRetries });
}

beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
});

describe('mockOpenAI with the real ChatOpenAI client', () => {
  it('returns a plain text reply with usage metadata', async () => {
    mock.enqueue({ content: 'Hello from the mock.' });
    const res = await client().invoke('Say hi');
    expect(res.content).toBe('Hello from the mock.');
    expect(res.usage_metadata).toBeDefined();
    expect(res.usage_metadata!.input_tokens).toBeGreaterThanOrEqual(1);
    expect(res.usage_metadata!.output_tokens).toBe(Math.ceil('Hello from the mock.'.length / 4));
    expect(res.usage_metadata!.total_tokens).toBe(res.usage_metadata!.input_tokens + res.usage_metadata!.output_tokens);

    expect(mock.requests).toHaveLength(1);
    const req = mock.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer test-key');
    expect(req.body.model).toBe('mock-model');
    expect(req.body.messages).toEqual([{ role: 'user', content: 'Say hi' }]);
    expect(mock.pending()).toBe(0);
  });

  it('honours explicit usage', async () => {
    mock.enqueue({ content: 'x', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    const res = await client().invoke('hi');
    expect(res.usage_metadata).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
  });

  it('returns tool calls with generated, explicit and missing ids', async () => {
    mock.enqueue({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_weather', arguments: { city: 'Oslo' }, id: 'call_custom' },
        { name: 'get_weather', arguments: '{"city":"Rome"}', id: null },
      ],
    });
    const res = await client().bindTools([weatherTool]).invoke('Weather?');
    expect(res.content).toBe('');
    expect(res.tool_calls).toHaveLength(3);
    expect(res.tool_calls![0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' });
    expect(res.tool_calls![0]!.id).toMatch(/^call_\d+$/);
    expect(res.tool_calls![1]).toMatchObject({ name: 'get_weather', args: { city: 'Oslo' }, id: 'call_custom' });
    // Observed: with no id on the wire the parsed tool call's id is undefined.
    expect(res.tool_calls![2]).toMatchObject({ name: 'get_weather', args: { city: 'Rome' } });
    expect(res.tool_calls![2]!.id).toBeUndefined();
    expect(res.invalid_tool_calls ?? []).toHaveLength(0);
    expect(mock.requests[0]!.body.tools[0].function.name).toBe('get_weather');
  });

  it('puts malformed tool arguments into invalid_tool_calls instead of throwing', async () => {
    mock.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"source": "fi_rep', id: 'call_bad' }] });
    // Observed: @langchain/core console.warns "New LangChain packages are available..." whenever
    // raw tool_calls exist but none parsed; silence it here.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const res = await client().bindTools([weatherTool]).invoke('Weather?').finally(() => warn.mockRestore());
    expect(res.tool_calls ?? []).toHaveLength(0);
    expect(res.invalid_tool_calls).toHaveLength(1);
    expect(res.invalid_tool_calls![0]).toMatchObject({ name: 'get_weather', args: '{"source": "fi_rep', id: 'call_bad' });
  });

  it('streams text in several chunks', async () => {
    const text = 'The total revenue for 2023 was 42 million.';
    mock.enqueue({ content: text });
    const chunks: AIMessageChunk[] = [];
    for await (const c of await client().stream('Revenue?')) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(3);
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.content).toBe(text);
    // ChatOpenAI asks for usage in streams by default.
    expect(mock.requests[0]!.body.stream).toBe(true);
    expect(mock.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(full.usage_metadata?.output_tokens).toBe(Math.ceil(text.length / 4));
  });

  it('streams tool-call fragments that concatenate into the right args', async () => {
    mock.enqueue({
      content: 'Let me check.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'San Francisco' }, id: 'call_a' },
        { name: 'get_weather', arguments: { city: 'Reykjavík' }, id: 'call_b' },
      ],
    });
    let full: AIMessageChunk | undefined;
    let n = 0;
    for await (const c of await client().bindTools([weatherTool]).stream('Weather?')) {
      full = full ? full.concat(c) : c;
      n++;
    }
    expect(n).toBeGreaterThan(6);
    expect(full!.content).toBe('Let me check.');
    expect(full!.tool_calls).toEqual([
      expect.objectContaining({ name: 'get_weather', args: { city: 'San Francisco' }, id: 'call_a' }),
      expect.objectContaining({ name: 'get_weather', args: { city: 'Reykjavík' }, id: 'call_b' }),
    ]);
    expect(full!.response_metadata.finish_reason).toBe('tool_calls');
  });

  it('documents streaming quirks: missing id → invalid_tool_calls, malformed args are partial-parsed', async () => {
    // Observed: in a stream, a tool call without an id cannot become a valid tool call
    // (core's chunk merger requires an id), so it lands in invalid_tool_calls with "Malformed args.".
    mock.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' }, id: null }] });
    let full: AIMessageChunk | undefined;
    for await (const c of await client().bindTools([weatherTool]).stream('Weather?')) full = full ? full.concat(c) : c;
    expect(full!.tool_calls).toEqual([]);
    expect(full!.invalid_tool_calls).toEqual([
      expect.objectContaining({ name: 'get_weather', args: '{"city":"Rome"}', error: 'Malformed args.' }),
    ]);

    // Observed: in a stream, truncated JSON args are repaired by the partial-JSON parser
    // instead of landing in invalid_tool_calls (unlike invoke()).
    mock.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Ro', id: 'call_x' }] });
    full = undefined;
    for await (const c of await client().bindTools([weatherTool]).stream('Weather?')) full = full ? full.concat(c) : c;
    expect(full!.tool_calls).toEqual([expect.objectContaining({ id: 'call_x', args: { city: 'Ro' } })]);
    expect(full!.invalid_tool_calls).toEqual([]);
  });

  it('streamCutAfter ends the stream early without [DONE]', async () => {
    mock.enqueue({ content: 'one two three four five six', streamCutAfter: 3 });
    const chunks: AIMessageChunk[] = [];
    let error: unknown;
    try {
      for await (const c of await client().stream('count')) chunks.push(c);
    } catch (e) {
      error = e;
    }
    // Observed: the client does not throw; it just yields what it got.
    expect(error).toBeUndefined();
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.content).toBe('one two ');
  });

  it('retries after a 429 and succeeds on the second request', async () => {
    mock.enqueue({ status: 429, headers: { 'retry-after': '0' } }, { content: 'after retry' });
    // Observed: the wait before the retry is p-retry's randomised backoff (1–2 s), not
    // retry-after, so no timing is asserted here; only that the same request is sent again.
    const res = await client(1).invoke('hi');
    expect(res.content).toBe('after retry');
    expect(mock.requests).toHaveLength(2);
    expect(mock.requests[0]!.body).toEqual(mock.requests[1]!.body);
  });

  it('does not retry a 429 without retry-after (LangChain treats it as a capacity error)', async () => {
    mock.enqueue({ status: 429 }, { content: 'never reached' });
    await expect(client(1).invoke('hi')).rejects.toMatchObject({ name: 'RateLimitCapacityError', status: 429 });
    expect(mock.requests).toHaveLength(1);
    expect(mock.pending()).toBe(1);
  });

  it('surfaces a 429 when retries are disabled', async () => {
    mock.enqueue({ status: 429, headers: { 'retry-after': '0' } });
    await expect(client(0).invoke('hi')).rejects.toThrow(/rate limit/i);
    expect(mock.requests).toHaveLength(1);
  });

  it('sends the tool result back with the right tool_call_id', async () => {
    mock.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_paris' }] },
      { content: 'It is sunny in Paris.' },
    );
    const model = client().bindTools([weatherTool]);
    const history = [new HumanMessage('Weather in Paris?')];
    const first = (await model.invoke(history)) as AIMessage;
    const call = first.tool_calls![0]!;
    const second = await model.invoke([
      ...history,
      first,
      new ToolMessage({ content: '{"sky":"sunny"}', tool_call_id: call.id! }),
    ]);
    expect(second.content).toBe('It is sunny in Paris.');
    expect(mock.requests).toHaveLength(2);
    const messages = mock.requests[1]!.body.messages;
    expect(messages).toHaveLength(3);
    expect(messages[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
    expect(messages[2]).toEqual({ role: 'tool', content: '{"sky":"sunny"}', tool_call_id: 'call_paris' });
  });

  it('answers with a reply computed from the request, e.g. to pass on what a tool returned', async () => {
    mock.enqueue((sent) => ({ content: `You said: ${sent.body.messages.at(-1).content}` }));
    expect((await client().invoke('ping')).content).toBe('You said: ping');
  });

  it('measures a request as the characters of its messages and tool definitions / 4', () => {
    const body = { model: 'ignored', messages: [{ role: 'user', content: 'x'.repeat(100) }], tools: [weatherTool] };
    const chars = JSON.stringify(body.messages).length + JSON.stringify(body.tools).length;
    expect(promptTokens(body)).toBe(Math.ceil(chars / 4));
    expect(toolDefinitionTokens(body)).toBe(Math.ceil(JSON.stringify([weatherTool]).length / 4));
    expect(promptTokens({ messages: [] })).toBe(Math.ceil('[][]'.length / 4));
  });

  it('refuses a prompt over maxPromptTokens as a local server does (400 context_length_exceeded), keeping the reply queued', async () => {
    const small = await startMockOpenAI({ maxPromptTokens: 50 });
    try {
      small.enqueue({ content: 'short enough' });
      const chat = new ChatOpenAI({ model: 'mock-model', apiKey: 'test-key', configuration: { baseURL: small.url }, maxRetries: 0 });
      await expect(chat.invoke('a question far too long for this window '.repeat(10))).rejects.toThrow(/maximum context length is 50 tokens/);
      expect(small.pending()).toBe(1);
      expect((await chat.invoke('hi')).content).toBe('short enough');
      expect(small.requests).toHaveLength(2);
    } finally {
      await small.close();
    }
  });

  it('fails loudly when the queue is empty', async () => {
    await expect(client().invoke('hi')).rejects.toThrow(/no scripted reply/);
    expect(mock.requests).toHaveLength(1);
  });

  it('serves error bodies, raw bodies, dropped connections and hangs', async () => {
    mock.enqueue({ status: 503, body: { error: { message: 'custom overload', type: 'server_error', code: 'overloaded' } } });
    await expect(client().invoke('a')).rejects.toThrow(/custom overload/);

    mock.enqueue({ raw: '{"id": "chatcmpl-x", "choi' });
    await expect(client().invoke('b')).rejects.toThrow();

    mock.enqueue({ dropConnection: true });
    await expect(client().invoke('c')).rejects.toThrow(/connection/i);

    mock.enqueue({ hang: true });
    const hanging = new ChatOpenAI({
      model: 'mock-model',
      apiKey: 'test-key',
      configuration: { baseURL: mock.url },
      maxRetries: 0,
      timeout: 150,
    });
    await expect(hanging.invoke('d')).rejects.toThrow(/timed? ?out/i);
    expect(mock.requests).toHaveLength(4);
    expect(mock.pending()).toBe(0);
  });

  it('answers GET /v1/models and honours delayMs', async () => {
    const list = (await (await fetch(`${mock.url}/models`)).json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toContain('mock-model');

    // A delayed reply still arrives…
    mock.enqueue({ content: 'slow', delayMs: 100 });
    expect((await client().invoke('hi')).content).toBe('slow');
    // …but not before it is due: a client that gives up sooner than the delay never sees it.
    mock.enqueue({ content: 'too late', delayMs: 10_000 }, { content: 'next' });
    const impatient = new ChatOpenAI({ model: 'mock-model', apiKey: 'k', configuration: { baseURL: mock.url }, maxRetries: 0, timeout: 100 });
    await expect(impatient.invoke('hi')).rejects.toThrow(/timed? ?out|abort/i);
    // The mock serves the next reply meanwhile (the delayed one is not holding it up).
    expect((await client().invoke('hi')).content).toBe('next');
  });

  it('close() ends hanging sockets promptly', async () => {
    const other = await startMockOpenAI();
    other.enqueue({ hang: true });
    const model = new ChatOpenAI({ model: 'mock-model', apiKey: 'k', configuration: { baseURL: other.url }, maxRetries: 0 });
    const pending = model.invoke('hi').then(
      () => 'resolved',
      () => 'rejected',
    );
    while (other.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    // Closing does not wait for the hanging request (which would never end): a close that
    // waited would outlast the test's timeout.
    await other.close();
    expect(await pending).toBe('rejected');
  });
});
