/**
 * The query pool's view of its dependencies, for GET /health and the metrics: whether the data
 * database can be used (and why not), whether the workers are all running, and counts of what
 * the pool refused or cancelled. State changes are logged once, not on every query.
 */
import type { Logger } from '../logging/logger.ts';
import type { ComponentHealth } from '../shared/health.ts';
import type { StartFailure } from './workerProcess.ts';

/** GET /health's `data.queries`. */
export interface QueryPoolStats {
  /** Configured worker processes (QUERY_WORKERS). */
  workers: number;
  /** Workers started and able to take a query. */
  ready: number;
  busy: number;
  queued: number;
  /** QUERY_QUEUE_MAX. */
  queue_max: number;
  /** A started process is held in reserve for a killed worker's place. */
  spare: boolean;
  timeouts: number;
  restarts: number;
}

/** Monotonic counts since startup (exposed as Prometheus counters). */
export interface PoolCounters {
  timeouts: number;
  restarts: number;
  /** `key_share`: a key had its share of the queue waiting (others were still served). */
  rejected: { queue_full: number; queue_wait: number; key_share: number; data_unavailable: number };
  cancelled: { queued: number; finished: number; killed: number };
}

/** Why the data database cannot be used, and when it is tried again. */
export interface DataDown {
  reason: string;
  /** Epoch ms of the next check or start attempt (for `retry_after_seconds`). */
  retryAt: number;
  /** No file at DATA_DB: no worker is started until the watch sees it again. */
  missing: boolean;
}

/** Counters and the data database's state; the pool drives it. */
export class PoolHealth {
  readonly counters: PoolCounters = {
    timeouts: 0,
    restarts: 0,
    rejected: { queue_full: 0, queue_wait: 0, key_share: 0, data_unavailable: 0 },
    cancelled: { queued: 0, finished: 0, killed: 0 },
  };
  down: DataDown | undefined;

  constructor(
    private readonly databaseName: string,
    private readonly checkIntervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** The watch found no usable file at DATA_DB: none, or (`problem`) one overwritten or truncated in place. */
  fileMissing(problem = 'is missing'): void {
    this.setDown({ reason: `the data database ${this.databaseName} (DATA_DB) ${problem}`, retryAt: Date.now() + this.checkIntervalMs, missing: true });
  }

  /** The file is there again; `usableNow` when it is the very file the workers still have open. */
  fileBack(usableNow: boolean): void {
    if (usableNow) this.recovered();
    else this.setDown({ reason: `the data database ${this.databaseName} (DATA_DB) is back and being opened`, retryAt: Date.now() + this.checkIntervalMs, missing: false });
  }

  /** A worker could not start; `retryInMs` until the next attempt. */
  startFailed(failure: StartFailure, retryInMs: number, consecutiveFailures: number): void {
    if (failure.reason === 'missing') return this.fileMissing();
    if (failure.reason === 'unreadable') {
      // A start already under way when the watch found the file damaged fails too: the watch's reason says more.
      if (this.down?.missing) return;
      return this.setDown({ reason: `the data database ${this.databaseName} (DATA_DB) cannot be opened as a SQLite database`, retryAt: Date.now() + retryInMs, missing: false });
    }
    this.logger.warn({ failure: failure.message, retry_in_ms: retryInMs }, 'a query worker could not start; retrying');
    if (consecutiveFailures >= 3) this.setDown({ reason: `query workers keep stopping while they start (${failure.message})`, retryAt: Date.now() + retryInMs, missing: false });
  }

  /** A worker opened the data database: it is usable. */
  recovered(): void {
    if (!this.down) return;
    this.logger.info({ database: this.databaseName, was: this.down.reason }, 'the data database is available again');
    this.down = undefined;
  }

  /** GET /health's components for the data database and the workers. */
  report(stats: QueryPoolStats, starting: boolean): { data: ComponentHealth; workers: ComponentHealth } {
    const data: ComponentHealth = this.down ? { status: 'down', reason: this.down.reason } : { status: 'ok' };
    let workers: ComponentHealth = { status: 'ok' };
    if (stats.ready === 0) {
      // Without a data problem this is a moment between a killed worker and its replacement.
      workers = this.down
        ? { status: 'down', reason: `no query can run: ${this.down.reason}` }
        : { status: 'degraded', reason: starting ? 'no query worker is ready; one is starting' : 'no query worker is ready; one starts shortly' };
    } else if (stats.ready < stats.workers) {
      workers = { status: 'degraded', reason: `${stats.ready} of ${stats.workers} query workers are running; the others are being replaced` };
    } else if (stats.queued >= stats.queue_max) {
      workers = { status: 'degraded', reason: `the query queue is full (${stats.queued} waiting): new queries are refused as busy` };
    }
    return { data, workers };
  }

  private setDown(down: DataDown): void {
    if (this.down?.reason !== down.reason) this.logger.error({ reason: down.reason, retry_in_ms: Math.max(0, down.retryAt - Date.now()) }, 'the data database is unavailable; queries are refused until it is back');
    this.down = down;
  }
}
