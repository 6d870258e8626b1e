/**
 * Whether the PostgreSQL application database can be used, as GET /health and the store's
 * callers see it. GET /health must answer from memory, so a background check (`SELECT 1`, every
 * second by default) keeps the state; a call that fails for want of a connection also marks it
 * down at once, and the next successful check brings it back. Connection failures become
 * StorageUnavailableError (503 `/problems/storage-unavailable`), as a deleted SQLite file does;
 * driver messages are logged with the APP_DB URL's password removed, never shown to clients.
 */
import type pg from 'pg';
import { StorageUnavailableError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { redactConnectionUrl } from '../shared/redact.ts';
import type { StorageHealth } from './appDatabaseGuard.ts';

/**
 * SQLSTATE classes and codes meaning "the server cannot serve us now", not "this statement is
 * wrong": connection exceptions (08), insufficient resources (53), operator intervention (57),
 * system errors (58), authentication (28), a database that is gone (3D000) and a read-only
 * server (25006, e.g. a standby after a failover).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58', '28']);
const UNAVAILABLE_CODES = new Set(['3D000', '25006']);

/** What a client sees when conversations cannot be read or stored (no host, no URL). */
const UNREACHABLE_REASON = 'the application database (APP_DB, PostgreSQL) cannot be reached; conversations cannot be read or stored until it is back.';

/**
 * True when `error` says the server could not be reached or cannot serve now (rather than a
 * mistake in a statement): a socket error, a connection or pool timeout, or a SQLSTATE above.
 * @example
 * isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })); // true
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^E[A-Z_]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, EPIPE…
    if (/^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || UNAVAILABLE_CODES.has(code);
  }
  // pg's own messages for a lost or never-made connection carry no code.
  return /connection terminated|connection error|not queryable|query read timeout|timeout exceeded when trying to connect|connect(ion)? timeout|pool (has been )?(ended|closed)|after calling end on the pool/i.test(error.message);
}

/**
 * The state of one PostgreSQL application database.
 * @example
 * const health = new PostgresHealth(pool, url, logger);
 * health.startMonitor(1_000);
 * await health.guard(() => pool.query('SELECT 1')); // StorageUnavailableError when it is down
 */
export class PostgresHealth {
  private down = false;
  private timer: NodeJS.Timeout | undefined;
  /** A check is under way (a slow server must not pile them up). */
  private checking = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly logger?: Logger,
  ) {}

  /** The last known state, for GET /health (no I/O). */
  status(): StorageHealth {
    return this.down ? { status: 'down', reason: UNREACHABLE_REASON } : { status: 'ok' };
  }

  /**
   * Runs a database call; a connection failure marks the database down and rejects with
   * StorageUnavailableError, any other error is rethrown as it is.
   */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (StorageUnavailableError.isInstance(error) || !isConnectionFailure(error)) throw error;
      this.markDown(error);
      throw new StorageUnavailableError(UNREACHABLE_REASON, { cause: new Error(this.redact((error as Error).message)) });
    }
  }

  /** Notes a failure seen outside a call (an idle connection that broke). */
  markDown(error: unknown): void {
    if (!this.down) this.logger?.error({ reason: this.redact(error instanceof Error ? error.message : String(error)) }, 'the application database (PostgreSQL) cannot be reached');
    this.down = true;
  }

  /** Checks the server every `intervalMs` in the background (0: never). */
  startMonitor(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One background check: `SELECT 1` on a pooled connection. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.pool.query('SELECT 1');
      if (this.down) this.logger?.info('the application database (PostgreSQL) is reachable again');
      this.down = false;
    } catch (error) {
      this.markDown(error);
    } finally {
      this.checking = false;
    }
  }

  /** A driver message without the APP_DB URL or its password. */
  redact(message: string): string {
    return redactConnectionUrl(message, this.url);
  }
}
