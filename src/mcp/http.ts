/**
 * MCP over Streamable HTTP at `/mcp`, behind the app's guards like every API route: the API
 * key as `Authorization: Bearer <key>` (401 without), the Host check against DNS rebinding,
 * the Origin check, the rate limit and the 64 kB body limit all run before this router.
 *
 * Stateless, as the SDK documents it: each POST gets a fresh server and transport, answers
 * with one JSON response (no event stream), and keeps nothing, so any instance behind a load
 * balancer can answer any request. Without sessions there is no server-to-client stream to open
 * (GET) or session to end (DELETE): both answer 405, as the SDK's stateless example does.
 *
 * One JSON-RPC message per POST: a batch (a JSON array) is refused with 400 before anything runs.
 * MCP 2025-06-18 removed batching, and a batch of 100 tool calls would count as one request
 * against RATE_LIMIT_PER_MINUTE while filling the query queue with 100 queries.
 */
import { Router, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ConversationService } from '../conversations/conversationService.ts';
import { callerOf } from '../access/caller.ts';
import type { McpDependencies } from './server.ts';
import { createMcpServer } from './server.ts';

/** JSON-RPC's implementation-defined server error, which the SDK's transport answers HTTP-level refusals with. */
const SERVER_ERROR = -32000;

/** Why a batch is refused, as the client reads it. */
export const BATCH_REFUSED = 'batches are not supported: send one request per HTTP request; MCP 2025-06-18 removed batching';

/** Where the MCP endpoint is served. */
const MCP_PATH = '/mcp';

/**
 * The `/mcp` routes.
 * @example
 * app.use(mcpRoutes(services, conversations));
 */
export function mcpRoutes(dependencies: McpDependencies, conversations: ConversationService): Router {
  const router = Router();

  router.post(MCP_PATH, async (request: Request, response: Response) => {
    if (Array.isArray(request.body)) {
      response.status(400).json(jsonRpcError(ErrorCode.InvalidRequest, BATCH_REFUSED));
      return;
    }
    // The caller the key guard recorded (the key's name, identity and data scope) goes with every tool run.
    const server = createMcpServer(dependencies, conversations, { caller: callerOf(response), logger: request.log });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Closing the transport when the connection ends (answered or dropped) aborts a tool still running.
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!response.headersSent) response.status(500).json(jsonRpcError(ErrorCode.InternalError, 'Internal server error.'));
    }
  });

  const notAllowed = (_request: Request, response: Response) => {
    response.status(405).setHeader('allow', 'POST').json(jsonRpcError(SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST.'));
  };
  router.get(MCP_PATH, notAllowed);
  router.delete(MCP_PATH, notAllowed);

  return router;
}

/** A JSON-RPC error not tied to a request (`id: null`), as the SDK's transport answers them. */
function jsonRpcError(code: number, message: string): { jsonrpc: '2.0'; error: { code: number; message: string }; id: null } {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}
