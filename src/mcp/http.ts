/**
 * MCP over Streamable HTTP at `/mcp`, behind the app's guards like every API route: the API
 * key as `Authorization: Bearer <key>` (401 without), the Host check against DNS rebinding,
 * the Origin check, the rate limit and the 64 kB body limit all run before this router.
 *
 * Two revisions on one endpoint, from one server definition (server.ts), the request telling
 * which (the SDK's own classification, `isLegacyRequest`):
 * - 2026-07-28 (current): every request carries its revision (`MCP-Protocol-Version` header and
 *   the `_meta` envelope); no handshake, no session; `server/discover` answers what the server
 *   offers. Served by the SDK's per-request handler (`createMcpHandler`).
 * - 2025-11-25 and earlier (the `initialize` handshake): stateless as the SDK documents it, a
 *   fresh server and transport per POST answering one JSON response (no event stream).
 * Either way nothing is kept between requests, so any instance behind a load balancer can answer
 * any request. Without sessions there is no stream to open (GET) or session to end (DELETE):
 * both answer 405.
 *
 * One JSON-RPC message per POST: a batch (a JSON array) is refused with 400 before anything runs.
 * MCP 2025-06-18 removed batching, and a batch of 100 tool calls would count as one request
 * against RATE_LIMIT_PER_MINUTE while filling the query queue with 100 queries.
 *
 * The SDK and the server definition are imported at the first request to /mcp, not at start:
 * they are a tenth of the service's cold start, and many services never serve MCP over HTTP.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Router, type Request, type Response } from 'express';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import type { ConversationService } from '../conversations/conversationService.ts';
import { callerOf } from '../access/caller.ts';
import type { McpDependencies, McpConnection, createMcpServer } from './server.ts';

type Sdk = typeof import('@modelcontextprotocol/server');

/** JSON-RPC's codes for an invalid request and an internal error (the SDK's ProtocolErrorCode, known before it loads). */
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;

/** The SDK and the server definition, imported once, at the first /mcp request. */
let loaded: Promise<{ sdk: Sdk; createMcpServer: typeof createMcpServer }> | undefined;
const loadMcp = () => (loaded ??= Promise.all([import('@modelcontextprotocol/server'), import('./server.ts')]).then(([sdk, server]) => ({ sdk, createMcpServer: server.createMcpServer })));

/** JSON-RPC's implementation-defined server error, which the SDK's transport answers HTTP-level refusals with. */
const SERVER_ERROR = -32000;

/** Why a batch is refused, as the client reads it. */
export const BATCH_REFUSED = 'batches are not supported: send one request per HTTP request; MCP 2025-06-18 removed batching';

/** Where the MCP endpoint is served. */
const MCP_PATH = '/mcp';

/** Open `subscriptions/listen` event streams per instance; one more is refused (JSON-RPC -32603 'Subscription limit reached'). */
const MAX_LISTEN_STREAMS = 32;

/** Request headers not copied onto the web Request the SDK reads: the body is already parsed, and the Host was checked. */
const NOT_FORWARDED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect']);

/**
 * The `/mcp` routes.
 * @example
 * app.use(mcpRoutes(services, conversations));
 */
export function mcpRoutes(dependencies: McpDependencies, conversations: ConversationService): Router {
  const router = Router();
  // Who is calling (the key guard's caller, the request's logger), by the web Request the SDK hands the factory back.
  const connections = new WeakMap<globalThis.Request, McpConnection>();
  // Built at the first request, once the SDK is loaded.
  let handlers: Promise<{ sdk: Sdk; serverFor: (context: McpRequestContext) => ReturnType<typeof createMcpServer>; current: ReturnType<Sdk['createMcpHandler']> }> | undefined;
  const ready = () =>
    (handlers ??= loadMcp().then(({ sdk, createMcpServer }) => {
      const serverFor = (context: McpRequestContext) => {
        const connection = context.requestInfo && connections.get(context.requestInfo);
        if (!connection) throw new Error('MCP request without its connection');
        return createMcpServer(dependencies, conversations, connection);
      };
      // 2026-07-28 requests; 2025-era ones never reach it (routed below, to answer them with JSON rather than an event stream).
      // The lists never change while a client listens (a skill reload shows at the next list), so a
      // `subscriptions/listen` stream only ever carries keep-alives: a few per instance are plenty.
      const current = sdk.createMcpHandler(serverFor, { legacy: 'reject', maxSubscriptions: MAX_LISTEN_STREAMS });
      return { sdk, serverFor, current };
    }));

  router.post(MCP_PATH, async (request: Request, response: Response) => {
    if (Array.isArray(request.body)) {
      response.status(400).json(jsonRpcError(INVALID_REQUEST, BATCH_REFUSED));
      return;
    }
    // The client going away (answered or dropped) aborts what still runs for it, a tool call included.
    const gone = new AbortController();
    response.on('close', () => gone.abort());
    const webRequest = toWebRequest(request, gone.signal);
    // The caller the key guard recorded (the key's name, identity and data scope) goes with every tool run.
    connections.set(webRequest, { caller: callerOf(response), logger: request.log });
    try {
      const { sdk, serverFor, current } = await ready();
      const answer = (await sdk.isLegacyRequest(webRequest, request.body))
        ? await answerLegacy(sdk, serverFor({ era: 'legacy', requestInfo: webRequest }), webRequest, request.body, gone.signal)
        : await current.fetch(webRequest, { parsedBody: request.body });
      await send(answer, response);
    } catch (error) {
      if (gone.signal.aborted) return;
      request.log.error({ err: error }, 'MCP request failed');
      if (!response.headersSent) response.status(500).json(jsonRpcError(INTERNAL_ERROR, 'Internal server error.'));
    }
  });

  const notAllowed = (_request: Request, response: Response) => {
    response.status(405).setHeader('allow', 'POST').json(jsonRpcError(SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.'));
  };
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);

  return router;
}

/**
 * One 2025-era request (the `initialize` handshake, or a request after it): a fresh server on a
 * stateless transport answering with one JSON response, closed when the client goes away.
 */
async function answerLegacy(sdk: Sdk, server: ReturnType<typeof createMcpServer>, request: globalThis.Request, body: unknown, gone: AbortSignal): Promise<globalThis.Response> {
  const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  gone.addEventListener('abort', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}

/** The express request as the web Request the SDK reads (its body already parsed by the app). */
function toWebRequest(request: Request, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new globalThis.Request(new URL(request.originalUrl, `http://${request.headers.host ?? 'localhost'}`), { method: request.method, headers, signal });
}

/** Writes the SDK's web Response (JSON, or an event stream) to the express response. */
async function send(answer: globalThis.Response, response: Response): Promise<void> {
  response.status(answer.status);
  answer.headers.forEach((value, name) => response.setHeader(name, value));
  if (!answer.body) {
    response.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>)
      .on('error', reject)
      .pipe(response)
      .on('finish', resolve)
      .on('close', resolve);
  });
}

/** A JSON-RPC error not tied to a request (`id: null`), as the SDK's transport answers them. */
function jsonRpcError(code: number, message: string): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
