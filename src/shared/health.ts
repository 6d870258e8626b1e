/**
 * The health vocabulary shared by GET /health and the dependency metrics: one status type and
 * one way to build the components object, so the two can never disagree.
 */

/** A dependency's (or the service's) state: 'down' makes GET /health answer 503. */
export type HealthStatus = 'ok' | 'degraded' | 'down';

/** One dependency's state in GET /health. */
export interface ComponentHealth {
  status: HealthStatus;
  /** Why it is not ok (never a secret or a full path). */
  reason?: string;
}

/** GET /health's `components`. */
export interface HealthComponents {
  data_database: ComponentHealth;
  app_database: ComponentHealth;
  query_workers: ComponentHealth;
}

/** Where the components' states come from: the query pool and the application database. */
export interface HealthSources {
  pool: { componentHealth(): { data: ComponentHealth; workers: ComponentHealth } };
  storage: () => ComponentHealth;
}

/**
 * The components of GET /health, read from their current state (no I/O).
 * @example
 * healthComponents({ pool: queries, storage: () => sessions.storageHealth() }).app_database.status; // 'ok'
 */
export function healthComponents({ pool, storage }: HealthSources): HealthComponents {
  const { data, workers } = pool.componentHealth();
  return { data_database: data, app_database: storage(), query_workers: workers };
}

/**
 * The worst of the components' statuses.
 * @example
 * overallStatus({ data_database: { status: 'ok' }, app_database: { status: 'down' }, query_workers: { status: 'ok' } }); // 'down'
 */
export function overallStatus(components: HealthComponents): HealthStatus {
  const statuses = Object.values(components).map((component) => component.status);
  if (statuses.includes('down')) return 'down';
  return statuses.includes('degraded') ? 'degraded' : 'ok';
}
