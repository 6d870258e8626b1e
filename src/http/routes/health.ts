/**
 * GET /health (liveness, readiness and what is running: model, data, skills, and the state of
 * each dependency) and GET /openapi.yaml. Public even with API_KEYS, so it shows no secret: the
 * model URL loses its credentials and query string, and reasons name files, never their folders. Cheap: every state it reports is kept
 * up to date in the background (file checks, worker events); the request does no I/O.
 */
import path from 'node:path';
import { Router } from 'express';
import type { ModelDescription } from '../../model/createChatModel.ts';
import { healthComponents, overallStatus, type HealthComponents } from '../../shared/health.ts';
import { safeUrl, withoutFolders } from '../../shared/redact.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { QueryPool } from '../../data/queryPool.ts';
import type { SessionStore } from '../../sessions/sessionStore.ts';
import type { SkillRegistry } from '../../skills/registry.ts';

/** What GET /health reports from; read at each request (the registry changes on a skill reload). */
export interface HealthRouteServices {
  readonly queries: QueryPool;
  readonly sessions: Pick<SessionStore, 'storageHealth'>;
  readonly catalog: Catalog;
  readonly registry: SkillRegistry;
  readonly modelDescription: ModelDescription;
  /** The default connection's file, undefined when it is PostgreSQL. */
  readonly dataDatabasePath: string | undefined;
  readonly openApiPath: string;
  readonly version: string;
  readonly startedAt: number;
}

/**
 * @example
 * app.use(healthRoutes(services)); // GET /health, GET /openapi.yaml
 */
export function healthRoutes(services: HealthRouteServices): Router {
  const router = Router();
  router.get('/health', (_request, response) => {
    const components = publicComponents(healthComponents({ pool: services.queries, storage: () => services.sessions.storageHealth() }));
    const status = overallStatus(components);
    // 'down' answers 503, so a load balancer or readiness probe takes the instance out of rotation.
    response.status(status === 'down' ? 503 : 200).json({
      status,
      version: services.version,
      uptime_seconds: Math.round((Date.now() - services.startedAt) / 1000),
      model: publicModelDescription(services.modelDescription),
      data: {
        database: services.dataDatabasePath ? path.basename(services.dataDatabasePath) : 'postgres',
        connections: services.queries.connectionStates().map(({ name, engine, target, status, reason }) => ({ name, engine, target: publicTarget(target), status, ...(reason ? { reason: withoutFolders(reason) } : {}) })),
        sources: services.catalog.sources.size,
        queries: services.queries.stats(),
      },
      components,
      skills: services.registry.skills.map((skill) => skill.name),
    });
  });
  router.get('/openapi.yaml', (_request, response) => {
    response.type('application/yaml').sendFile(services.openApiPath);
  });
  return router;
}

/** A connection's target without the folders of a file (no full paths in a public answer). */
function publicTarget(target: string): string {
  const file = /^(sqlite|duckdb):(\/.+)$/.exec(target);
  return file ? `${file[1]}:${path.basename(file[2]!)}` : target;
}

/** The components with file names, never folders, in their reasons (a driver's error may quote a path). */
function publicComponents(components: HealthComponents): HealthComponents {
  const entries = Object.entries(components).map(([name, health]) => [name, health.reason ? { ...health, reason: withoutFolders(health.reason) } : health]);
  return Object.fromEntries(entries) as HealthComponents;
}

/** The model description without secrets: the base URL as {@link safeUrl} shows it. */
function publicModelDescription(model: ModelDescription): ModelDescription {
  if (model.base_url === undefined) return model;
  return { ...model, base_url: safeUrl(model.base_url) };
}
