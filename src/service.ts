/**
 * Wires the service together from a configuration: data database and catalog, skills and
 * registry, chat model, sessions, and the HTTP app with MCP mounted on it. Used by main.ts and by the tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import type { Catalog } from './catalog/catalog.ts';
import { openCatalog } from './catalog/openCatalog.ts';
import { projectRoot, type ServiceConfig } from './config/config.ts';
import { DEFAULT_CONNECTION } from './data/connections.ts';
import { QueryPool } from './data/queryPool.ts';
import { ConversationService } from './conversations/conversationService.ts';
import { createApp, type AppServices } from './http/app.ts';
import { mcpRoutes } from './mcp/http.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { buildKnowledgeBase } from './knowledge/knowledgeBase.ts';
import type { Logger } from './logging/logger.ts';
import { createChatModel, createOfflineChatModel, type ModelDescription } from './model/createChatModel.ts';
import type { SessionStore } from './sessions/sessionStore.ts';
import { openSqliteStore } from './sessions/sqliteStore.ts';
import { checkScope } from './scopes/dataScope.ts';
import { loadSkills } from './skills/loader.ts';
import { SkillRegistry } from './skills/registry.ts';
import { watchSkills } from './skills/reload.ts';
import { buildSystemPrompt } from './agent/turnPreparation.ts';
import { Scheduler } from './schedules/scheduler.ts';

export interface Service {
  app: Express;
  /** What the app is built from (registry, knowledge and prompt read live): the MCP stdio server uses it without HTTP. */
  services: AppServices;
  /** The conversation policy the app's routes use; the MCP stdio server uses the same one. */
  conversations: ConversationService;
  registry: SkillRegistry;
  modelDescription: ModelDescription;
  queries: QueryPool;
  /** This instance's Prometheus registry and series (served by GET /metrics). */
  metrics: Metrics;
  /** Runs the skills' schedules (it ticks by itself; `tick()` looks at them now). */
  scheduler: Scheduler;
  /** Stops the scheduler and the query workers and closes the application database. */
  close(): Promise<void>;
}

const defaultSampleDatabase = path.join(projectRoot, 'data/sample.db');
/** How often this instance looks for due schedules: a slot starts at most this late. */
const SCHEDULER_TICK_MS = 15_000;
/** The records namespace of the schedules' states: not a skill name (those are snake_case), so no skill can read them. */
const SCHEDULER_NAMESPACE = 'schedules/';

/**
 * Builds every part of the service; nothing listens yet.
 * @throws ConfigurationError for a missing database, an invalid catalog or a broken skill.
 */
export async function createService(config: ServiceConfig, logger: Logger): Promise<Service> {
  if (config.dataDatabasePath === defaultSampleDatabase && !existsSync(defaultSampleDatabase)) {
    // First start on a fresh clone whose install skipped the build: make the bundled sample now.
    const { buildSampleDatabase } = await import('../data/sample/generate.ts');
    buildSampleDatabase(defaultSampleDatabase);
    logger.info({ path: defaultSampleDatabase }, 'built the sample database');
  }
  // These connections only check the catalog against the tables; queries run in the worker pool.
  const { catalog, connections, states, defaultUsed } = await openCatalog(config.catalogPath, { name: DEFAULT_CONNECTION, url: config.dataUrl }, { statementTimeoutMs: config.queryTimeoutMs, logger, environment: config.environment });
  // Everything built from the skills; SKILLS_RELOAD swaps it for new requests when a skill changes.
  const loadSkillSet = async (fresh = false) => {
    // Each skill's records live in the application database, opened below (before any tool runs).
    const registry = new SkillRegistry(await loadSkills(config.skillsDirectory, { disabled: config.skillsDisabled, fresh }), { recordsFor: (skill) => sessions.skillRecords(skill) });
    return { registry, knowledge: buildKnowledgeBase(registry.skills), ...(await createChatModel(config.model, catalog, registry)), systemPrompt: buildSystemPrompt(registry.skills) };
  };
  // A scope naming a source or dimension the catalog lacks is a typo: stop now, not hide data later.
  for (const key of config.declaredKeys) if (key.scope) checkScope(key.scope, catalog, key.name, 'API_KEYS_FILE');
  // The query workers start (separate processes, each opening the data) while this process loads
  // the skills and the conversation store: on a small machine that overlap is a fifth of a start.
  const startingQueries = QueryPool.start({
    // DATA_DB is opened and watched only when a source lives on it.
    databasePath: defaultUsed ? config.dataDatabasePath : undefined,
    connections,
    connectionStates: states,
    workers: config.queryWorkers,
    timeoutMs: config.queryTimeoutMs,
    queueMax: config.queryQueueMax,
    queueWaitMs: config.queryQueueWaitMs,
    logger,
  });
  // Awaited below; until then a failure to start must not count as unhandled.
  startingQueries.catch(() => undefined);
  let skills: Awaited<ReturnType<typeof loadSkillSet>>;
  let sessions: SessionStore;
  try {
    skills = await loadSkillSet();
    // APP_DB=postgres://… shares conversations (and per-session serialisation) between instances. Its
    // store (and pg) is imported only then: the SQLite default starts without them.
    const ttlMs = config.sessionTtlHours * 3_600_000;
    sessions = config.appDatabaseUrl
      ? await (await import('./sessions/postgresStore.ts')).openPostgresStore({ url: config.appDatabaseUrl, ttlMs, leaseMs: config.sessionLeaseSeconds * 1000, logger })
      : openSqliteStore({ path: config.appDatabasePath!, ttlMs, logger });
  } catch (error) {
    // A broken skill or a bad APP_DB stops the start: leave no worker process behind.
    await startingQueries.then((pool) => pool.close(), () => undefined);
    throw error;
  }
  const { description } = skills;
  let queries: QueryPool;
  try {
    queries = await startingQueries;
  } catch (error) {
    await sessions.close();
    throw error;
  }
  // A registry per service instance, so services in one process (tests) never share counts.
  const metrics = createMetrics({ provider: description.provider, processMetrics: true });
  metrics.trackDependencies({ pool: queries, storage: () => sessions.storageHealth() });
  const services: AppServices = {
    catalog,
    data: queries,
    queries,
    get registry() { return skills.registry; },
    get knowledge() { return skills.knowledge; },
    get model() { return skills.model; },
    modelDescription: description,
    get systemPrompt() { return skills.systemPrompt; },
    sessions,
    logger,
    metrics,
    chatDeadlineMs: config.chatDeadlineMs,
    // The offline model writes only figures of the tool results and cannot be asked to rewrite: checked, never repaired.
    answerCheck: config.model.provider === 'offline' && config.answerCheck === 'repair' ? 'flag' : config.answerCheck,
    corsOrigins: config.corsOrigins,
    apiKeys: config.apiKeys,
    declaredKeys: config.declaredKeys,
    // The offline model understands questions in the catalog's words: a scoped key's model knows only its scope's.
    ...(config.model.provider === 'offline' ? { modelFor: (scoped: Catalog, hiddenTerms: readonly string[]) => createOfflineChatModel(scoped, skills.registry, { hiddenTerms }).model } : {}),
    rateLimitPerMinute: config.rateLimitPerMinute,
    allowedHosts: config.allowedHosts,
    listenHost: config.host,
    sessionMaxTurns: config.sessionMaxTurns,
    dataDatabasePath: config.dataDatabasePath,
    openApiPath: path.join(projectRoot, 'openapi.yaml'),
    version: packageVersion(),
    startedAt: Date.now(),
  };
  const conversations = new ConversationService(services);
  // MCP (/mcp) is served on the same app, behind the same guards, next to the HTTP API.
  const app = createApp(services, conversations, [mcpRoutes(services, conversations)]);
  const watcher = config.skillsReload
    ? watchSkills({
        directory: config.skillsDirectory,
        logger,
        reload: async () => {
          skills = await loadSkillSet(true);
          return { skills: skills.registry.skills.map((skill) => skill.name), tools: skills.registry.names() };
        },
      })
    : undefined;
  // Skills' schedules run on every instance's ticks; each due slot runs once among them (schedules/scheduler.ts).
  const scheduler = new Scheduler({
    skills: () => skills.registry.skills,
    states: sessions.skillRecords(SCHEDULER_NAMESPACE),
    recordsFor: (skill) => sessions.skillRecords(skill),
    catalog,
    data: queries,
    logger: logger.child({ component: 'scheduler' }),
  });
  scheduler.start(SCHEDULER_TICK_MS);
  return {
    app,
    services,
    conversations,
    get registry() { return skills.registry; },
    modelDescription: description,
    queries,
    metrics,
    scheduler,
    close: async () => {
      watcher?.close();
      // A run stopped here keeps its lease until it expires; then another instance (or the next start) runs its slot again.
      await Promise.race([scheduler.stop(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      return queries.close().finally(() => sessions.close());
    },
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
