/**
 * The service's tools, knowledge and instructions over the Model Context Protocol, for any MCP
 * client (Claude Desktop, IDE agents): the same server answers over Streamable HTTP (http.ts)
 * and stdio (stdio.ts).
 *
 * Built on the SDK's low-level `Server` with the JSON-RPC handlers set directly, not with
 * `McpServer.registerTool`: the registry already publishes each tool's input and output JSON
 * Schema (the ones GET /skills shows) and validates arguments itself with its structured
 * `invalid_arguments` error and hints. registerTool would convert the zod schemas again (its
 * own JSON Schema), validate before our handler (its own error text) and fix the tool list when
 * the server is built, where a skill reload must show at the next request. Nothing here names
 * a tool: tools, resources and the prompt all come from the registry, read at each request.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type GetPromptResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { buildSystemPrompt } from '../agent/turnPreparation.ts';
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


/** What the MCP server reads; `registry` is read at each request (a skill reload swaps it). */
export interface McpDependencies {
  readonly registry: SkillRegistry;
  readonly version: string;
}

/** The connection the server answers: its caller (the API key's name, identity and data scope; undefined over stdio or without API keys), and the logger its lines go to (the HTTP request's, or the service's over stdio). */
interface McpConnection {
  caller: Caller | undefined;
  logger: Logger;
}

/**
 * An MCP server offering every enabled tool, the knowledge files as resources and the
 * instructions as the prompt `analyst`; connect it to a transport.
 * @example
 * const server = createMcpServer(services, conversations, { caller: callerOf(response), logger: request.log });
 * await server.connect(new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }));
 */
export function createMcpServer(dependencies: McpDependencies, conversations: ConversationService, connection: McpConnection): Server {
  const server = new Server(
    { name: 'analyst-agent', title: 'Analyst agent', version: dependencies.version },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: `Finance data analysis over governed sources: reconcile sources, find the causes of differences, check data quality. Get the prompt '${PROMPT_NAME}' for the rules and how to use the tools; the resources hold the skills' background knowledge.`,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: dependencies.registry.list().map((listed) => toolListing(listed, hiddenTerms())) }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(dependencies, conversations, request.params.name, request.params.arguments ?? {}, { ...connection, signal: extra.signal }),
  );

  // A scoped key is never shown text naming data outside its scope (the conversation service knows which words do).
  const hiddenTerms = () => conversations.hiddenTerms(connection.caller);
  const hidden = () => conversations.hiddenData(connection.caller);

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: knowledgeResources(dependencies.registry.skills, hidden()).map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
  }));
  // Every file is listed, so there are no templates; answered because clients ask.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));

  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const found = readKnowledgeResource(dependencies.registry.skills, request.params.uri, hidden());
    if (!found) throw new McpError(ErrorCode.InvalidParams, `No knowledge resource '${request.params.uri.slice(0, 200)}'; list the resources for the URIs offered.`);
    return { contents: [{ uri: found.resource.uri, mimeType: found.resource.mimeType, text: found.text }] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
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

  server.setRequestHandler(GetPromptRequestSchema, (request): GetPromptResult => {
    if (request.params.name !== PROMPT_NAME) throw new McpError(ErrorCode.InvalidParams, `No prompt '${request.params.name.slice(0, 100)}'; the prompt offered is '${PROMPT_NAME}'.`);
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
    // Every tool of the service reads: none writes, posts or deletes, and the same call gives the same answer.
    annotations: { title: tool.title ?? titleOf(tool.name), readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
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
