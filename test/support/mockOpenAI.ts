/**
 * A local, dependency-free mock of the OpenAI Chat Completions HTTP API.
 *
 * It speaks enough of the wire format that the real `ChatOpenAI` client from
 * `@langchain/openai` (and the `openai` SDK underneath it) runs against it
 * unmodified. Replies are scripted in a FIFO queue; every chat-completions
 * request is recorded (before it is answered) so tests can assert on what the
 * client actually sent.
 *
 * Usage:
 *   const mock = await startMockOpenAI();
 *   mock.enqueue({ toolCalls: [{ name: 'run_sql', arguments: { sql: 'select 1' } }] }, { content: 'Done.' });
 *   // configure the service with OPENAI_BASE_URL = mock.url
 *   ...
 *   expect(mock.requests).toHaveLength(2);
 *   await mock.close();
 *
 * A reply may also be a function of the request (e.g. to pass on an id a tool returned), and
 * `maxPromptTokens` makes the mock refuse prompts over that size the way a local server with
 * that context window does (400, `context_length_exceeded`). `promptTokens` is the one measure
 * of a request's size the tests and the README's figures use.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ScriptedToolCall = {
  name: string;
  /** Objects are JSON.stringified; strings are sent verbatim (may be malformed JSON on purpose). */
  arguments: string | Record<string, unknown>;
  /** undefined → generated `call_<n>`; null → the `id` field is omitted entirely. */
  id?: string | null;
};

type ReplyCommon = {
  /** Wait this long before answering. */
  delayMs?: number;
  /** Streamed requests only: stop after this many SSE chunks, without [DONE], and end the response. */
  streamCutAfter?: number;
};

export type ScriptedReply = (
  | { content: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { toolCalls: ScriptedToolCall[]; content?: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string; status?: number; contentType?: string }
  | { hang: true }
  | { dropConnection: true }
) &
  ReplyCommon;

/** A reply, or a function choosing it from the request it answers. */
export type ScriptedStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface MockOpenAI {
  /** Base URL to give the client, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  enqueue(...replies: ScriptedStep[]): void;
  /** Every chat.completions request, in arrival order (parsed JSON body). */
  requests: RecordedRequest[];
  /** Replies not yet consumed. */
  pending(): number;
  /** Clear the queue and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

export interface MockOpenAIOptions {
  port?: number;
  /**
   * Refuse a request whose prompt ({@link promptTokens}) is over this many tokens with a 400
   * `context_length_exceeded` error, as a local server with that context window does. The
   * scripted reply stays queued for the next request.
   */
  maxPromptTokens?: number;
}

/**
 * The size of a chat request as the tests measure it: characters of its messages and tool
 * definitions as sent (JSON), divided by 4. Used for every prompt-size figure of the README.
 * @example
 * promptTokens(mock.requests[0]!.body) // 1_234
 */
export function promptTokens(body: unknown): number {
  const request = (body ?? {}) as { messages?: unknown; tools?: unknown };
  const chars = JSON.stringify(request.messages ?? []).length + JSON.stringify(request.tools ?? []).length;
  return Math.ceil(chars / 4);
}

/** Tokens of the tool definitions alone, by the measure of {@link promptTokens}. */
export function toolDefinitionTokens(body: unknown): number {
  return Math.ceil(JSON.stringify((body as { tools?: unknown } | undefined)?.tools ?? []).length / 4);
}

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);
const MODELS_PATHS = new Set(['/v1/models', '/models']);

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

function messageChars(body: unknown): number {
  if (!body || typeof body !== 'object') return 0;
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return 0;
  let n = 0;
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const content = (m as { content?: unknown }).content;
    if (typeof content === 'string') n += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = part && typeof part === 'object' ? (part as { text?: unknown }).text : undefined;
        if (typeof text === 'string') n += text.length;
      }
    }
    const toolCalls = (m as { tool_calls?: unknown }).tool_calls;
    if (Array.isArray(toolCalls)) n += JSON.stringify(toolCalls).length;
  }
  return n;
}

/** Split text into small pieces (words with their trailing whitespace). */
function splitWords(text: string): string[] {
  const pieces = text.match(/\S+\s*|\s+/g);
  return pieces && pieces.length > 0 ? pieces : [text];
}

/** Split a string into fragments of at most `size` characters. */
function splitEvery(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

function defaultErrorFor(status: number) {
  switch (status) {
    case 400:
      return errorBody('mock: bad request', 'invalid_request_error', 'bad_request');
    case 401:
      return errorBody('mock: invalid api key', 'invalid_request_error', 'invalid_api_key');
    case 404:
      return errorBody('mock: not found', 'invalid_request_error', 'not_found');
    case 429:
      return errorBody('mock: rate limit exceeded', 'requests', 'rate_limit_exceeded');
    default:
      return errorBody(`mock: HTTP ${status}`, 'server_error', status >= 500 ? 'server_error' : null);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const queue: ScriptedStep[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let callCounter = 0;
  let completionCounter = 0;
  let closed = false;

  const nextCallId = () => `call_${++callCounter}`;
  const nextCompletionId = () => `chatcmpl-mock${++completionCounter}`;

  async function handleChat(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const rawBody = await readBody(req);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let body: any;
    try {
      body = rawBody.length > 0 ? JSON.parse(rawBody) : undefined;
    } catch {
      body = rawBody;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'POST', path, headers: { ...req.headers }, body };
    requests.push(recorded);

    const size = promptTokens(body);
    if (options.maxPromptTokens !== undefined && size > options.maxPromptTokens) {
      // The wording of vLLM and OpenAI; llama.cpp's server refuses with 400 too.
      const message = `This model's maximum context length is ${options.maxPromptTokens} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`;
      sendJson(res, 400, { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } });
      return;
    }

    const step = queue.shift();
    const reply = typeof step === 'function' ? step(recorded) : step;
    if (!reply) {
      sendJson(res, 500, errorBody('mock: no scripted reply left', 'server_error'));
      return;
    }

    if (reply.delayMs && reply.delayMs > 0) {
      await sleep(reply.delayMs);
      if (res.destroyed || closed) return;
    }

    if ('hang' in reply) return; // never answer; socket is destroyed on close()
    if ('dropConnection' in reply) {
      req.socket.destroy();
      return;
    }
    if ('raw' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(reply.raw);
      return;
    }
    if ('status' in reply) {
      sendJson(res, reply.status, reply.body !== undefined ? reply.body : defaultErrorFor(reply.status), reply.headers);
      return;
    }

    const model: string = typeof body?.model === 'string' ? body.model : 'mock-model';
    const content: string | null = 'content' in reply && typeof reply.content === 'string' ? reply.content : null;
    const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
    const wireCalls = toolCalls.map((tc) => {
      const id = tc.id === undefined ? nextCallId() : tc.id;
      const args = typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments);
      return { id, name: tc.name, args };
    });
    const finishReason = wireCalls.length > 0 ? 'tool_calls' : 'stop';
    const completionChars =
      (content?.length ?? 0) + wireCalls.reduce((n, c) => n + c.name.length + c.args.length, 0);
    const usage: Usage = reply.usage
      ? { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens }
      : (() => {
          const prompt_tokens = estimateTokens(messageChars(body));
          const completion_tokens = estimateTokens(completionChars);
          return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
        })();
    const id = nextCompletionId();
    const created = Math.floor(Date.now() / 1000);

    if (body?.stream === true) {
      const includeUsage = body?.stream_options?.include_usage === true;
      streamReply(res, {
        id,
        created,
        model,
        content,
        calls: wireCalls,
        finishReason,
        usage: includeUsage ? usage : undefined,
        cutAfter: reply.streamCutAfter,
      });
      return;
    }

    const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
    if (wireCalls.length > 0) {
      message.tool_calls = wireCalls.map((c) => ({
        ...(c.id === null ? {} : { id: c.id }),
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }));
    }
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage,
      system_fingerprint: 'fp_mock',
    });
  }

  function streamReply(
    res: ServerResponse,
    s: {
      id: string;
      created: number;
      model: string;
      content: string | null;
      calls: { id: string | null; name: string; args: string }[];
      finishReason: string;
      usage: Usage | undefined;
      cutAfter: number | undefined;
    },
  ): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const base = { id: s.id, object: 'chat.completion.chunk', created: s.created, model: s.model, system_fingerprint: 'fp_mock' };
    const chunks: unknown[] = [];
    const choiceChunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });

    chunks.push(choiceChunk({ role: 'assistant', content: '', refusal: null }));
    if (s.content) for (const piece of splitWords(s.content)) chunks.push(choiceChunk({ content: piece }));
    s.calls.forEach((call, index) => {
      chunks.push(
        choiceChunk({
          tool_calls: [
            {
              index,
              ...(call.id === null ? {} : { id: call.id }),
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        }),
      );
      for (const frag of splitEvery(call.args, 4)) {
        chunks.push(choiceChunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
      }
    });
    chunks.push(choiceChunk({}, s.finishReason));
    if (s.usage) chunks.push({ ...base, choices: [], usage: s.usage });

    const limit = s.cutAfter !== undefined ? Math.max(0, s.cutAfter) : Infinity;
    let out = '';
    for (let i = 0; i < chunks.length && i < limit; i++) out += `data: ${JSON.stringify(chunks[i])}\n\n`;
    if (limit >= chunks.length) out += 'data: [DONE]\n\n';
    // Write the events one by one so the client really sees a stream.
    const events = out.split(/(?<=\n\n)/).filter((e) => e.length > 0);
    for (const e of events) res.write(e);
    res.end();
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    if (method === 'POST' && CHAT_PATHS.has(path)) {
      handleChat(req, res, path).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          sendJson(res, 500, errorBody(`mock: internal error: ${String(err)}`, 'server_error'));
        } else res.destroy();
      });
      return;
    }
    if (method === 'GET' && MODELS_PATHS.has(path)) {
      const created = Math.floor(Date.now() / 1000);
      sendJson(res, 200, {
        object: 'list',
        data: ['mock-model', 'gpt-4o-mini', 'gpt-4o'].map((id) => ({ id, object: 'model', created, owned_by: 'mock' })),
      });
      return;
    }
    // Drain the body, then 404.
    req.resume();
    req.on('end', () => sendJson(res, 404, errorBody(`mock: no route for ${method} ${path}`, 'invalid_request_error', 'not_found')));
  });

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...replies: ScriptedStep[]) {
      queue.push(...replies);
    },
    pending() {
      return queue.length;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    close() {
      closed = true;
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
        sockets.clear();
      });
    },
  };
}
