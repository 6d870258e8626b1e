/**
 * Prometheus series for the service's dependencies, read from their state at scrape time: the
 * query worker pool (workers by state, queue, restarts, refusals, cancellations) and the health
 * status of the data database, the application database and the workers (as GET /health says).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PoolCounters, QueryPoolStats } from '../data/queryPool.ts';
import { healthComponents, type HealthSources, type HealthStatus } from '../shared/health.ts';

export interface DependencySources extends HealthSources {
  pool: HealthSources['pool'] & { stats(): QueryPoolStats; counters(): PoolCounters };
}

const STATUSES: readonly HealthStatus[] = ['ok', 'degraded', 'down'];

/**
 * Registers the series in `registry`.
 * @example
 * trackDependencies(registry, { pool: queries, storage: () => sessions.storageHealth() });
 */
export function trackDependencies(registry: Registry, sources: DependencySources): void {
  const { pool } = sources;
  const registers = [registry];
  new Gauge({
    name: 'query_pool_workers',
    help: 'Query worker places by state: busy, idle, or missing (being replaced); plus the warm spare (spare: 1 when ready).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = pool.stats();
      this.set({ state: 'busy' }, stats.busy);
      this.set({ state: 'idle' }, stats.ready - stats.busy);
      this.set({ state: 'missing' }, stats.workers - stats.ready);
      this.set({ state: 'spare' }, stats.spare ? 1 : 0);
    },
  });
  new Gauge({
    name: 'query_pool_queued',
    help: 'Queries waiting for a worker (at most QUERY_QUEUE_MAX).',
    registers,
    collect() {
      this.set(pool.stats().queued);
    },
  });
  const counter = (name: string, help: string, read: (counters: PoolCounters) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(pool.counters()));
      },
    });
  counter('query_pool_restarts_total', 'Worker processes started to replace one (timeout, cancellation, crash, replaced data file).', (c) => c.restarts);
  counter('query_pool_timeouts_total', 'Queries stopped at QUERY_TIMEOUT_MS.', (c) => c.timeouts);
  new Counter({
    name: 'query_pool_rejected_total',
    help: 'Queries refused without running: queue_full and queue_wait (busy), data_unavailable.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(pool.counters().rejected)) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: 'query_pool_cancelled_total',
    help: 'Queries cancelled by their caller: queued (left the line), finished (ended within the grace period), killed (process killed).',
    labelNames: ['outcome'] as const,
    registers,
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(pool.counters().cancelled)) this.inc({ outcome }, count);
    },
  });
  new Gauge({
    name: 'dependency_status',
    help: 'Health of each dependency as GET /health reports it: 1 for its current status (ok, degraded or down), 0 for the others.',
    labelNames: ['component', 'status'] as const,
    registers,
    collect() {
      for (const [component, current] of Object.entries(healthComponents(sources))) {
        for (const status of STATUSES) this.set({ component, status }, status === current.status ? 1 : 0);
      }
    },
  });
}
