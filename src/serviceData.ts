/**
 * The data side of a start: the catalog, opened and checked against its tables, and the query
 * workers, starting. Apart from service.ts so that the entry point can start the workers
 * (separate processes, each about 0.15 s to start) before it loads the rest of the service (about
 * half a second of modules): on a small machine the two then overlap instead of following each
 * other.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from './catalog/catalog.ts';
import { openCatalog } from './catalog/openCatalog.ts';
import { projectRoot, type ServiceConfig } from './config/config.ts';
import { DEFAULT_CONNECTION } from './data/connections.ts';
import { QueryPool } from './data/queryPool.ts';
import type { Logger } from './logging/logger.ts';
import type { Service, ServiceOptions } from './service.ts';
import { checkScope } from './scopes/dataScope.ts';

export interface ServiceData {
  catalog: Catalog;
  /** The query workers, ready once this settles; a failure to start is handled by whoever awaits it. */
  queries: Promise<QueryPool>;
}

const defaultSampleDatabase = path.join(projectRoot, 'data/sample.db');

/**
 * Opens the catalog and starts the query workers (without waiting for them).
 * @throws ConfigurationError for a missing database, an invalid catalog or a scope naming what the catalog lacks.
 * @example
 * const data = await openServiceData(config, logger);
 * const service = await createService(config, logger, data); // waits for the workers
 */
export async function openServiceData(config: ServiceConfig, logger: Logger): Promise<ServiceData> {
  if (config.dataDatabasePath === defaultSampleDatabase && !existsSync(defaultSampleDatabase)) {
    // First start on a fresh clone whose install skipped the build: make the bundled sample now.
    const { buildSampleDatabase } = await import('../data/sample/generate.ts');
    buildSampleDatabase(defaultSampleDatabase);
    logger.info({ path: defaultSampleDatabase }, 'built the sample database');
  }
  // These connections only check the catalog against the tables; queries run in the worker pool.
  const { catalog, connections, states, defaultUsed } = await openCatalog(config.catalogPath, { name: DEFAULT_CONNECTION, url: config.dataUrl }, { statementTimeoutMs: config.queryTimeoutMs, logger, environment: config.environment, duckdbMemoryLimit: config.duckdbMemoryLimit });
  // A scope naming a source or dimension the catalog lacks is a typo: stop now, not hide data later.
  for (const key of config.declaredKeys) if (key.scope) checkScope(key.scope, catalog, key.name, 'API_KEYS_FILE');
  const queries = QueryPool.start({
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
  // Awaited by the service; until then a failure to start must not count as unhandled.
  queries.catch(() => undefined);
  return { catalog, queries };
}

/**
 * Starts the service as the entry points do: the data first, then the rest of the service
 * (imported only now) is loaded and built while the query workers start.
 * @throws what openServiceData and createService throw; no worker is left behind.
 * @example
 * const service = await startService(config, logger);
 */
export async function startService(config: ServiceConfig, logger: Logger, options: ServiceOptions = {}): Promise<Service> {
  const data = await openServiceData(config, logger);
  try {
    return await (await import('./service.ts')).createService(config, logger, data, options);
  } catch (error) {
    await data.queries.then((pool) => pool.close(), () => undefined);
    throw error;
  }
}
