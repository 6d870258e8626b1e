/**
 * The service's tools, knowledge and instructions over the Model Context Protocol, for any MCP
 * client (Claude Desktop, IDE agents): the same server answers over Streamable HTTP (http.ts)
 * and stdio (stdio.ts), to clients of the current revision (2026-07-28: stateless, no
 * handshake, `server/discover`) and of the 2025 revisions (the `initialize` handshake), with
 * the SDK v2 (`@modelcontextprotocol/server`) choosing the revision from each request.
 *
 * Built on the SDK's low-level `Server` with the JSON-RPC handlers set directly, not with
 * `McpServer.registerTool`: the registry already publishes each tool's input and output JSON
 * Schema (the ones GET /skills shows) and validates arguments itself with its structured
 * `invalid_arguments` error and hints. registerTool would convert the zod schemas again (its
 * own JSON Schema), validate before our handler (its own error text) and fix the tool list when
 * the server is built, where a skill reload must show at the next request. Nothing here names
 * a tool: tools, resources and the prompt all come from the registry, read at each request.
 */
import { ProtocolError, ProtocolErrorCode, Server, type CacheHint, type CallToolResult, type GetPromptResult, type Tool } from '@modelcontextprotocol/server';
import { buildSystemPrompt } from '../agent/systemPrompt.ts';
import type { ConversationService } from '../conversations/conversationService.ts';
import type { Logger } from '../logging/logger.ts';
import type { Caller } from '../scopes/dataScope.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import { withoutMentions } from '../scopes/scopedCatalog.ts';
import { knowledgeResources, readKnowledgeResource } from './knowledgeResources.ts';
import { isObject } from '../shared/messageText.ts';
import { truncateForDisplay } from '../shared/truncate.ts';

/** The one prompt: the skills' instructions. */
const PROMPT_NAME = 'analyst';

/**
 * How long a 2026-07-28 client may reuse a list or a knowledge file (`ttlMs`), for itself only
 * (`cacheScope: 'private'`): what a key sees depends on its data scope, and a skill reload
 * (SKILLS_RELOAD) shows within a minute. 2025-era answers carry no cache fields.
 */
const CACHE_HINT: CacheHint = { ttlMs: 60_000, cacheScope: 'private' };


/** What the MCP server reads; `registry` is read at each request (a skill reload swaps it). */
export interface McpDependencies {
  readonly registry: SkillRegistry;
  readonly version: string;
}

/** The connection the server answers: its caller (the API key's name, identity and data scope; undefined over stdio or without API keys), and the logger its lines go to (the HTTP request's, or the service's over stdio). */
export interface McpConnection {
  caller: Caller | undefined;
  logger: Logger;
}

/**
 * An MCP server offering every enabled tool, the knowledge files as resources and the
 * instructions as the prompt `analyst`; connect it to a transport.
 * @example
 * serveStdio(() => createMcpServer(services, conversations, { caller: undefined, logger }));
 */
export function createMcpServer(dependencies: McpDependencies, conversations: ConversationService, connection: McpConnection): Server {
  const server = new Server(
    { name: 'analyst-agent', title: 'Analyst agent', version: dependencies.version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: `Finance data analysis over governed sources: reconcile sources, find the causes of differences, check data quality. Get the prompt '${PROMPT_NAME}' for the rules and how to use the tools; the resources hold the skills' background knowledge.`,
      cacheHints: {
        'server/discover': CACHE_HINT,
        'tools/list': CACHE_HINT,
        'prompts/list': CACHE_HINT,
        'resources/list': CACHE_HINT,
        'resources/templates/list': CACHE_HINT,
        'resources/read': CACHE_HINT,
      },
    },
  );

  // In the registry's order (skills by folder name, then each skill's tools): the same list, in the same order, at every request.
  server.setRequestHandler('tools/list', () => ({ tools: dependencies.registry.list().map((listed) => toolListing(listed, hiddenTerms())) }));

  server.setRequestHandler('tools/call', async (request, context) => {
    const result = await callTool(dependencies, conversations, request.params.name, request.params.arguments ?? {}, { ...connection, signal: context.mcpReq.signal });
    // The revision's own shape of a result (the SDK's one place for it); ours are objects, so it changes nothing today.
    return server.projectCallToolResult(result, dependencies.registry.get(request.params.name)?.outputSchema);
  });

  // A scoped key is never shown text naming data outside its scope (the conversation service knows which words do).
  const hiddenTerms = () => conversations.hiddenTerms(connection.caller);
  const hidden = () => conversations.hiddenData(connection.caller);

  server.setRequestHandler('resources/list', () => ({
    resources: knowledgeResources(dependencies.registry.skills, hidden()).map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  // Every file is listed, so there are no templates; answered because clients ask.
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));

  server.setRequestHandler('resources/read', (request) => {
    const found = readKnowledgeResource(dependencies.registry.skills, request.params.uri, hidden());
    if (!found) throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `No knowledge resource '${request.params.uri.slice(0, 200)}'; list the resources for the URIs offered.`);
    return { contents: [{ uri: found.resource.uri, mimeType: found.resource.mimeType, text: found.text }] };
  });

  server.setRequestHandler('prompts/list', () => ({
    prompts: [
      {
        name: PROMPT_NAME,
        title: 'Finance data analyst',
        description: `The analyst's rules and the instructions of every enabled skill (${dependencies.registry.skills.map((skill) => skill.name).join(', ') || 'none'}); optionally followed by a question.`,
        // No example values here: a scoped key must not see data outside its scope named anywhere.
        arguments: [{ name: 'question', description: 'A question in plain language, asked after the instructions.', required: false }],
      },
    ],
  }));

  server.setRequestHandler('prompts/get', (request): GetPromptResult => {
    if (request.params.name !== PROMPT_NAME) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt '${request.params.name.slice(0, 100)}'; the prompt offered is '${PROMPT_NAME}'.`);
    const question = request.params.arguments?.question?.trim();
    // Every skill's instructions inline: an MCP client gets them in one piece instead of fetching each skill's on demand.
    const instructions = withoutMentions(buildSystemPrompt(dependencies.registry.skills, { instructions: 'inline' }), hiddenTerms());
    return {
      description: 'Instructions for answering finance questions with these tools.',
      messages: [
        { role: 'user', content: { type: 'text', text: instructions } },
        ...(question ? [{ role: 'user' as const, content: { type: 'text' as const, text: question } }] : []),
      ],
    };
  });

  return server;
}

/**
 * Runs one tool for an MCP client through the conversation service: the validation, data
 * scope, timeouts, audit log line and structured errors of POST /tools. The caller's identity
 * reaches the tool run here and only here. A success is the result as `structuredContent` plus its JSON
 * (and the tool's one-line summary) as text; a failure is `isError` with `{ error }` as JSON text.
 * @example
 * const result = await callTool(services, conversations, toolName, {}, { caller, logger, signal });
 */
async function callTool(
  dependencies: McpDependencies,
  conversations: ConversationService,
  name: string,
  args: Record<string, unknown>,
  context: McpConnection & { signal?: AbortSignal },
): Promise<CallToolResult> {
  const { signal, caller } = context;
  // Every line of the call says it came over MCP; the conversation service writes the audit line ('tool call').
  const logger = context.logger.child({ transport: 'mcp' });
  const { registry } = dependencies;
  if (!registry.get(name)) {
    logger.info({ tool: truncateForDisplay(name), error_code: 'unknown_tool' }, 'tool call refused: no such tool');
    return errorResult(registry.unknownToolError(name).toPayload());
  }
  // The one place an MCP client's identity and data scope reach a tool run.
  const { outcome, durationMs } = await conversations.runTool(name, args, { logger, signal, caller });
  if (signal?.aborted) logger.info({ tool: name, duration_ms: durationMs }, 'tool call cancelled: the client went away');
  if (!outcome.ok) return errorResult({ error: outcome.error });
  const summary = registry.summarize(name, outcome.result);
  return {
    content: [{ type: 'text', text: JSON.stringify(outcome.result) }, ...(summary ? [{ type: 'text' as const, text: summary }] : [])],
    ...(isObject(outcome.result) ? { structuredContent: outcome.result } : {}),
  };
}

/** A tool as `tools/list` shows it: description, and the JSON Schemas GET /skills publishes. */
/** A tool as MCP lists it; for a scoped key without the sentences naming data outside its scope. */
function toolListing({ tool, inputSchema, outputSchema }: ReturnType<SkillRegistry['list']>[number], hiddenTerms: readonly string[]): Tool {
  return {
    name: tool.name,
    title: tool.title ?? titleOf(tool.name),
    description: withoutMentions(tool.description, hiddenTerms),
    // A tool reads unless it declares it writes (its skill's records): then clients should ask before running it.
    annotations: { title: tool.title ?? titleOf(tool.name), readOnlyHint: !tool.writes, destructiveHint: tool.writes === true, idempotentHint: !tool.writes, openWorldHint: false },
    // Tools take a JSON object (as POST /tools does); MCP requires the schema to say so.
    inputSchema: { ...inputSchema, type: 'object' },
    // MCP output schemas describe objects; a tool whose result is anything else offers none.
    ...(outputSchema.type === 'object' ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
  };
}

/** "compare_sources" → "Compare sources". */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A failed call: the structured error as JSON text. Not as `structuredContent`: MCP clients
 * (the SDK's own) check structured content against the tool's output schema, errors included.
 */
function errorResult(payload: { error: unknown }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(payload) }] };
}
