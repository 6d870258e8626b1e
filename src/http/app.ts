/**
 * The Express application: JSON body parsing with a size limit, one log line per request
 * with a request id, the routes, and problem responses for everything that goes wrong.
 */
import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import type { AnswerCheckMode } from '../config/config.ts';
import { pinoHttp } from 'pino-http';
import type { Catalog } from '../catalog/catalog.ts';
import type { ConversationService } from '../conversations/conversationService.ts';
import type { DataAccess } from '../data/dataAccess.ts';
import type { QueryPool } from '../data/queryPool.ts';
import { safeErrorSerializer, type Logger } from '../logging/logger.ts';
import type { KnowledgeBase } from '../skills/api.ts';
import type { ChatModelSource, ChatModelWithTools } from '../model/chatModel.ts';
import type { ModelDescription } from '../model/createChatModel.ts';
import type { SessionStore } from '../sessions/sessionStore.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import { createMetrics, type Metrics } from '../observability/metrics.ts';
import { metricsHandler, observeRequests } from '../observability/observe.ts';
import { validateAgainstSpec } from './contract.ts';
import { errorHandler, sendProblem } from './problem.ts';
import { identifyCaller } from '../access/caller.ts';
import { requireApiKey } from './security/access.ts';
import { allowedHostNames, checkHost, checkOrigin, refuseQueryCredentials } from './security/requestGuards.ts';
import { ApiKeys } from '../access/apiKeys.ts';
import type { DeclaredKey } from '../config/keysFile.ts';
import { securityHeaders } from './security/headers.ts';
import { rateLimiter } from './security/rateLimit.ts';
import { chatRoutes } from './routes/chat.ts';
import { healthRoutes } from './routes/health.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { toolRoutes } from './routes/tools.ts';
import { framablePage, webRoutes } from './routes/web.ts';
import { truncateForDisplay } from '../shared/truncate.ts';

export interface AppServices {
  catalog: Catalog;
  data: DataAccess;
  /** The same object as `data`, for its statistics. */
  queries: QueryPool;
  registry: SkillRegistry;
  /** The skills' knowledge files, searchable by tools (ToolContext.knowledge). */
  knowledge?: KnowledgeBase;
  /** The chat model, or what makes it on the first question. */
  model: ChatModelSource;
  modelDescription: ModelDescription;
  systemPrompt: string;
  sessions: SessionStore;
  logger: Logger;
  chatDeadlineMs: number;
  /** How answers' figures are checked (ANSWER_CHECK; `flag` for the offline model). */
  answerCheck?: AnswerCheckMode;
  /** Origins allowed to call the API from a browser ('*' for any). */
  corsOrigins: string[];
  /** API keys (API_KEYS); empty or absent (and no declared keys): no authentication. */
  apiKeys?: string[];
  /** Named keys with data scopes (API_KEYS_FILE). */
  declaredKeys?: DeclaredKey[];
  /** The model for a scoped catalog, when the model knows the catalog (see ConversationDependencies.modelFor). */
  modelFor?: (catalog: Catalog, hiddenTerms: readonly string[]) => ChatModelWithTools | Promise<ChatModelWithTools>;
  /** Requests a minute per key or client IP (RATE_LIMIT_PER_MINUTE); 0 or absent: no limit. */
  rateLimitPerMinute?: number;
  /** Extra host names requests may be addressed to (ALLOWED_HOSTS; ['*']: any); loopback names always. */
  allowedHosts?: string[];
  /** The interface the service listens on (HOST): its names are allowed hosts too. */
  listenHost?: string;
  /** Turns one conversation may hold (SESSION_MAX_TURNS); absent: 200. */
  sessionMaxTurns?: number;
  /** Prometheus metrics of this service (GET /metrics); a fresh registry when absent. */
  metrics?: Metrics;
  /** The default connection's file, undefined when it is PostgreSQL. */
  dataDatabasePath: string | undefined;
  openApiPath: string;
  version: string;
  startedAt: number;
}

/** Request bodies larger than this are refused with 413. */
const BODY_LIMIT = '64kb';

/**
 * Builds the app on the conversation policy its routes share (`/chat`, `/tools`); listening is
 * the caller's business (tests use supertest or port 0). `mounted`: routers served behind the
 * same guards (host, origin, key, rate limit, body limit, contract), after the tool routes;
 * service.ts mounts MCP's `/mcp` there, so HTTP and MCP never import each other.
 * @example
 * const app = createApp(services, conversations, [mcpRoutes(services, conversations)]);
 */
export function createApp(services: AppServices, conversations: ConversationService, mounted: readonly RequestHandler[] = []): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(
    pinoHttp({
      logger: services.logger,
      genReqId: (request, response) => {
        const given = request.headers['x-request-id'];
        const id = typeof given === 'string' && /^[A-Za-z0-9._-]{1,100}$/.test(given) ? given : randomUUID();
        response.setHeader('x-request-id', id);
        return id;
      },
      customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info'),
      serializers: {
        // Query strings may hold anything a client put there (a key, a token): logged as a marker only.
        // …and bounded: a 16 KB path (an unknown tool's name) is not copied into every log line.
        req: (request) => ({ id: request.id, method: request.method, url: truncateForDisplay(withoutQuery(request.url) ?? '', 200) }),
        err: safeErrorSerializer,
        res: (response) => ({ statusCode: response.statusCode }),
      },
    }),
  );
  // Request latency by route pattern and status, and the observation the agent reports to (GET /metrics).
  const metrics = services.metrics ?? createMetrics({ provider: services.modelDescription.provider });
  app.use(observeRequests(metrics));
  // Dashboards on other origins may call the API when their origin is allowed (CORS_ORIGINS).
  app.use(
    cors({
      origin: services.corsOrigins.includes('*') ? true : services.corsOrigins,
      // mcp-*: browser-based MCP clients send the revision on every request to /mcp, and at 2026-07-28 the method and tool name too.
      allowedHeaders: ['content-type', 'authorization', 'x-request-id', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'],
      exposedHeaders: ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after'],
      maxAge: 600,
    }),
  );
  // helmet's security headers; the web pages set their own Content-Security-Policy (routes/web.ts).
  app.use(securityHeaders((path) => framablePage(services.registry, path)));
  // A Host that is not ours (DNS rebinding), a key in the URL, a call from a foreign page: refused first.
  app.use(checkHost(allowedHostNames(services.allowedHosts ?? [], services.listenHost ?? '127.0.0.1')));
  app.use(refuseQueryCredentials());
  app.use(checkOrigin(services.corsOrigins));
  // Who is calling, the rate limit per key (or IP), then 401 without a valid key: all before the body is read.
  const apiKeys = new ApiKeys(services.apiKeys ?? [], services.declaredKeys ?? []);
  app.use(identifyCaller(apiKeys));
  const limiter = rateLimiter(services.rateLimitPerMinute ?? 0);
  if (limiter) app.use(limiter);
  app.use(requireApiKey(apiKeys));
  app.use(emptyBodyHasLengthZero);
  app.use(express.json({ limit: BODY_LIMIT, strict: false }));
  app.use(validateAgainstSpec(services.openApiPath));
  app.use(healthRoutes(services));
  app.get('/metrics', metricsHandler(metrics));
  // Conversation policy for /chat and /tools; it reads `services` at each call (skill reloads).
  app.use(toolRoutes(services, conversations));
  for (const router of mounted) app.use(router);
  app.use(chatRoutes(services, conversations));
  app.use(webRoutes(services));
  app.use(sessionRoutes(services));
  app.use((request, response) => sendProblem(response, 'notFound', `No route for ${request.method} ${request.path}.`));
  app.use(errorHandler(services.logger));
  return app;
}

/** "/sessions?limit=5" → "/sessions?[redacted]": the path stays, what follows `?` never reaches a log. */
function withoutQuery(url: string | undefined): string | undefined {
  const query = url?.indexOf('?') ?? -1;
  return query === -1 ? url : `${url!.slice(0, query)}?[redacted]`;
}

/**
 * A request with neither Content-Length nor Transfer-Encoding has an empty body (RFC 9112
 * §6.3); saying so lets `Content-Type: application/json` with nothing after it read as `{}`
 * instead of "no body in an unsupported format" (415).
 */
const emptyBodyHasLengthZero: RequestHandler = (request, _response, next) => {
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) request.headers['content-length'] = '0';
  next();
};
