/**
 * Wires the service together from a configuration: data database and catalog, skills and
 * registry, chat model, sessions, and the HTTP app with MCP mounted on it. Used by main.ts and by the tests.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import type { Catalog } from './catalog/catalog.ts';
import { projectRoot, type ServiceConfig } from './config/config.ts';
import type { QueryPool } from './data/queryPool.ts';
import { ConversationService } from './conversations/conversationService.ts';
import type { AppServices } from './http/app.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { buildKnowledgeBase } from './knowledge/knowledgeBase.ts';
import type { Logger } from './logging/logger.ts';
import { createChatModel, createOfflineChatModel, type ModelDescription } from './model/createChatModel.ts';
import type { SessionStore } from './sessions/sessionStore.ts';
import { openSqliteStore } from './sessions/sqliteStore.ts';
import { loadSkills } from './skills/loader.ts';
import { SkillRegistry } from './skills/registry.ts';
import { watchSkills } from './skills/reload.ts';
import { buildSystemPrompt } from './agent/systemPrompt.ts';
import { Outbox } from './notifications/outbox.ts';
import { Scheduler } from './schedules/scheduler.ts';
import { openServiceData, type ServiceData } from './serviceData.ts';

export interface Service {
  /** The HTTP app (absent with `http: false`: reading it then throws). */
  readonly app: Express;
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
  /** Delivers the skills' notifications (it delivers by itself; `deliverDue()` delivers what is due now). */
  outbox: Outbox;
  /** Stops the scheduler and the query workers and closes the application database. */
  close(): Promise<void>;
}

/** How often this instance looks for due schedules: a slot starts at most this late. */
const SCHEDULER_TICK_MS = 15_000;
/** The records namespace of the schedules' states: not a skill name (those are snake_case), so no skill can read them. */
const SCHEDULER_NAMESPACE = 'schedules/';
/** The records namespace of the notification outbox (not a skill name either). */
const NOTIFICATIONS_NAMESPACE = 'notifications/';
/** How often this instance looks for notifications due (each send also delivers at once). */
const NOTIFY_INTERVAL_MS = 15_000;

export interface ServiceOptions {
  /** Build the HTTP app (default true); the MCP stdio server serves no HTTP. */
  http?: boolean;
  /** The clock of the scheduler and the notification outbox (default Date.now): tests move it. */
  now?: () => number;
}

/**
 * Builds every part of the service; nothing listens yet. `data`, when given, was opened by
 * openServiceData (the entry point starts the workers before it loads this module).
 * @throws ConfigurationError for a missing database, an invalid catalog or a broken skill.
 */
export async function createService(config: ServiceConfig, logger: Logger, data?: ServiceData, options: ServiceOptions = {}): Promise<Service> {
  // The HTTP layer (express, the routes, /mcp over HTTP: half of the service's modules) is
  // imported only for a service that serves HTTP (the MCP stdio server serves none), from the
  // start, so that it loads while the query workers start.
  const loadingHttp = options.http === false ? undefined : Promise.all([import('./http/app.ts'), import('./mcp/http.ts')]);
  loadingHttp?.catch(() => undefined);
  const { catalog, queries: startingQueries } = data ?? (await openServiceData(config, logger));
  // Everything built from the skills; SKILLS_RELOAD swaps it for new requests when a skill changes.
  const loadSkillSet = async (fresh = false) => {
    // Each skill's records live in the application database, opened below (before any tool runs).
    const registry = new SkillRegistry(await loadSkills(config.skillsDirectory, { disabled: config.skillsDisabled, fresh }), {
      recordsFor: (skill) => sessions.skillRecords(skill),
      notifierFor: (skill) => (notification) => outbox.send(skill, notification),
    });
    return { registry, knowledge: buildKnowledgeBase(registry.skills), ...createChatModel(config.model, catalog, registry), systemPrompt: buildSystemPrompt(registry.skills) };
  };
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
    ...(config.model.provider === 'offline' ? { modelFor: async (scoped: Catalog, hiddenTerms: readonly string[]) => (await createOfflineChatModel(scoped, skills.registry, { hiddenTerms })).model } : {}),
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
  let app: Express | undefined;
  if (loadingHttp) {
    const [{ createApp }, { mcpRoutes }] = await loadingHttp;
    app = createApp(services, conversations, [mcpRoutes(services, conversations)]);
  }
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
  // Notifications skills send (ToolContext.notify) wait in the application database until a webhook took them.
  const outbox = new Outbox({
    records: sessions.skillRecords(NOTIFICATIONS_NAMESPACE),
    webhooks: config.notifications.webhooks,
    logger: logger.child({ component: 'notifications' }),
    ...(options.now ? { now: options.now } : {}),
  });
  outbox.start(NOTIFY_INTERVAL_MS);
  // Skills' schedules run on every instance's ticks; each due slot runs once among them (schedules/scheduler.ts).
  const scheduler = new Scheduler({
    skills: () => skills.registry.skills,
    states: sessions.skillRecords(SCHEDULER_NAMESPACE),
    recordsFor: (skill) => sessions.skillRecords(skill),
    catalog,
    data: queries,
    logger: logger.child({ component: 'scheduler' }),
    // A scheduled tool call runs as the caller the skill names (a saved check's owner and scope), like a call to POST /tools.
    runTool: async (name, input, { caller, signal, logger: runLogger }) => {
      const { outcome } = await conversations.runTool(name, input, { logger: runLogger, signal, caller });
      return outcome.ok ? { ok: true, result: outcome.result } : outcome;
    },
    notify: (skill, notification) => outbox.send(skill, notification),
    ...(options.now ? { now: options.now } : {}),
  });
  scheduler.start(SCHEDULER_TICK_MS);
  return {
    get app() {
      if (!app) throw new Error('this service was built without HTTP (createService with http: false)');
      return app;
    },
    services,
    conversations,
    get registry() { return skills.registry; },
    modelDescription: description,
    queries,
    metrics,
    scheduler,
    outbox,
    close: async () => {
      watcher?.close();
      // A run stopped here keeps its lease until it expires; then another instance (or the next start) runs its slot again.
      await Promise.race([scheduler.stop(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      // Before the store closes: a delivery it stops hands its entry back through the store.
      await outbox.stop();
      return queries.close().finally(() => sessions.close());
    },
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
