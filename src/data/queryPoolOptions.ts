/**
 * What a query pool is started with (QueryPool.start): its connections, how many workers, and
 * the limits that keep it bounded and fair under load (see queryPool.ts for how each is used).
 */
import type { Logger } from '../logging/logger.ts';
import type { ConnectionSpec, ConnectionState } from './connections.ts';
import type { RespawnLimits } from './respawnLimiter.ts';

export interface QueryPoolOptions {
  /** The default connection's file (SQLite or DuckDB), watched; undefined when it has none (PostgreSQL). */
  databasePath: string | undefined;
  /** Every connection the workers open (default: the SQLite file at databasePath as 'default'). */
  connections?: ConnectionSpec[];
  /** How the connections answered at startup; kept up to date from the queries' outcomes. */
  connectionStates?: ConnectionState[];
  /** Worker processes, i.e. queries that run at once; more wait in line. */
  workers: number;
  /** Longest a single query may run before its process is killed. */
  timeoutMs: number;
  /** Queries that may wait for a worker (QUERY_QUEUE_MAX, default 32); more are refused with `busy`. */
  queueMax?: number;
  /** Longest a query may wait for a worker (QUERY_QUEUE_WAIT_MS, default 10 s); then `busy`. */
  queueWaitMs?: number;
  /** Queries one API key may have waiting (default: half of queueMax, at least 1); more are `busy`. */
  queuePerKey?: number;
  /** Queries one API key may have running while another key is active (default: all workers but one, at least 1), so the other finds a worker. */
  workersPerKey?: number;
  /** How long after its last query a key counts as active (default 60 s); a key alone uses every worker. */
  keyActiveMs?: number;
  /** How long a cancelled running query may take to finish before its process is killed (default 250 ms). */
  cancelGraceMs?: number;
  /** How long a query runs before its process yields the CPU to shorter ones (default 50 ms). */
  yieldAfterMs?: number;
  /** Keep one started process in reserve for a killed worker's place (default true). */
  spare?: boolean;
  /** How often DATA_DB is checked (default 1 s). */
  monitorIntervalMs?: number;
  respawn?: Partial<RespawnLimits>;
  logger: Logger;
}
