/**
 * The SessionStore (sessionStore.ts) over PostgreSQL (APP_DB=postgres://…), for any number of
 * service instances sharing conversations: the same records as the SQLite store (sessions with
 * owner, title and TTL, turns with tool calls, usage and the LangChain messages, artifacts such
 * as comparison ids), the same pages, cursors and RangeErrors, the same owner rule. The SQL of
 * those records is postgresRecords.ts; this module runs it: order, leases, sweep, health, opening.
 *
 * Turns of one session run one at a time across all instances: in this process a queue per
 * session keeps arrival order, then a lease row in PostgreSQL (postgresLease.ts) keeps other
 * instances out while the turn runs. A turn is appended in one transaction that locks the
 * session row and numbers the turn `turns + 1`, so turns never collide; once appendTurn
 * resolves the turn is committed (durable with PostgreSQL's default `synchronous_commit = on`).
 * A connection failure rejects with StorageUnavailableError (503), as a broken SQLite file does.
 */
import pg from 'pg';
import { connectLibpq, connectionFailureMessage } from '../shared/postgresTls.ts';
import { ConfigurationError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { redactConnectionUrl, safeUrl } from '../shared/redact.ts';
import type { StorageHealth } from './appDatabaseGuard.ts';
import { PostgresHealth } from './postgresHealth.ts';
import { SessionLeases } from './postgresLease.ts';
import { PostgresRecords } from './postgresRecords.ts';
import { migratePostgres } from './postgresSchema.ts';
import type { SessionPage } from './sessionPaging.ts';
import type { SessionHistory, SessionSummary, TurnInput } from './sessionRecords.ts';
import type { RecentHistory, SessionStore } from './sessionStore.ts';
import { SessionQueue } from './sessionQueue.ts';
import type { SkillRecords } from '../skills/sdk/records.ts';
import { PostgresSkillRecords } from './postgresSkillRecords.ts';

const DEFAULT_EXPIRY_INTERVAL_MS = 10 * 60 * 1000;
const DEFAULT_LEASE_MS = 30_000;

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (a secret: never logged as it is). */
  url: string;
  /** Sessions idle longer than this expire; 0 keeps them forever. */
  ttlMs: number;
  /** How long a session's lease lasts without renewal (SESSION_LEASE_SECONDS); default 30 s. */
  leaseMs?: number;
  /** Sweep interval of idle sessions (also swept once at open); 0 disables the timer. */
  expiryIntervalMs?: number;
  /** How often GET /health's view of the server is refreshed in the background (default 1 s; 0: never). */
  healthCheckIntervalMs?: number;
  logger?: Logger;
  /** The clock for session timestamps and expiry, for tests (leases use the server's clock). */
  now?: () => number;
}

/**
 * Conversations in PostgreSQL, shared by every instance on the same APP_DB.
 * @example
 * const store = await openPostgresStore({ url: process.env.APP_DB!, ttlMs: 0 });
 * await store.runExclusive(id, async () => store.appendTurn(id, turn)); // alone on `id`, across instances
 */
export class PostgresStore implements SessionStore {
  private readonly queue = new SessionQueue();
  private readonly ttlMs: number;
  private readonly health: PostgresHealth;
  private readonly leases: SessionLeases;
  /** The SQL of sessions, turns and artifacts (postgresRecords.ts). */
  private readonly records: PostgresRecords;
  private timer: NodeJS.Timeout | undefined;

  /** Use openPostgresStore, which also creates the schema. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
    /** How the store's own connections connect (the lease listener): as the pool does. */
    connection: pg.ClientConfig,
  ) {
    this.ttlMs = options.ttlMs;
    this.health = new PostgresHealth(pool, options.url, options.logger);
    // An idle pooled connection that breaks (server restart) is reported here, not thrown.
    pool.on('error', (error) => this.health.markDown(error));
    this.leases = new SessionLeases({ pool, connection, health: this.health, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, logger: options.logger });
    this.records = new PostgresRecords({ pool, health: this.health, ttlMs: options.ttlMs, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, now: options.now ?? Date.now });
  }

  /** Starts the background work: the health check and the expiry sweep (after one sweep now). */
  async start(): Promise<void> {
    this.health.startMonitor(this.options.healthCheckIntervalMs ?? 1_000);
    await this.expireIdleLogged();
    const interval = this.options.expiryIntervalMs ?? DEFAULT_EXPIRY_INTERVAL_MS;
    if (interval > 0 && this.ttlMs > 0) {
      this.timer = setInterval(() => void this.expireIdleLogged(), interval);
      this.timer.unref();
    }
  }

  skillRecords(namespace: string): SkillRecords {
    return new PostgresSkillRecords(this.pool, this.health, namespace, this.options.now ?? Date.now);
  }

  /** This instance's id, as it appears in lease rows. */
  get instanceId(): string {
    return this.leases.instanceId;
  }

  create(owner?: string): Promise<SessionSummary> {
    return this.records.create(owner);
  }

  get(id: string, owner?: string): Promise<SessionSummary | undefined> {
    return this.records.get(id, owner);
  }

  recentHistory(id: string, owner?: string, limit?: number): Promise<RecentHistory> {
    return this.records.recentHistory(id, owner, limit);
  }

  /**
   * Stores one turn, numbered after the last one, in one transaction. Inside runExclusive the
   * session's lease is checked (and extended) in the same transaction: a turn whose lease another
   * instance took over is refused with StorageUnavailableError rather than stored on top of a
   * turn it never saw.
   */
  appendTurn(id: string, turn: TurnInput): Promise<boolean> {
    return this.records.appendTurn(id, turn, this.leases.current(id));
  }

  list(options: { limit?: number; cursor?: string | undefined; owner?: string | undefined } = {}): Promise<SessionPage> {
    return this.records.list(options);
  }

  history(id: string, owner?: string, page?: { limit: number; after?: number }): Promise<SessionHistory | undefined> {
    return this.records.history(id, owner, page);
  }

  delete(id: string, owner?: string): Promise<boolean> {
    return this.records.delete(id, owner);
  }

  /** Deletes sessions idle past the TTL, never one with a turn in progress on any instance. @returns how many. */
  expireIdle(): Promise<number> {
    return this.records.expireIdle(this.queue.ids());
  }

  runExclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.queue.run(id, () => this.leases.hold(id, work));
  }

  saveArtifact(sessionId: string, key: string, value: unknown): Promise<boolean> {
    return this.records.saveArtifact(sessionId, key, value);
  }

  artifact<T = unknown>(sessionId: string, key: string): Promise<T | undefined> {
    return this.records.artifact<T>(sessionId, key);
  }

  storageHealth(): StorageHealth {
    return this.health.status();
  }

  async close(): Promise<void> {
    this.health.stop();
    if (this.timer) clearInterval(this.timer);
    await this.leases.close();
    await this.pool.end().catch(() => undefined);
  }

  private async expireIdleLogged(): Promise<void> {
    try {
      const removed = await this.expireIdle();
      if (removed > 0) this.options.logger?.info({ removed, ttl_hours: this.ttlMs / 3_600_000 }, 'expired idle sessions');
    } catch (error) {
      this.options.logger?.warn({ reason: this.health.redact((error as Error).message) }, 'could not expire idle sessions');
    }
  }
}

/** The pool's connection settings: bounded waits, so a server that went away fails calls instead of hanging them (connectLibpq reads the TLS options as libpq does). */
function connectionSettings(url: string): pg.ClientConfig & { connectionString: string } {
  return { connectionString: url, application_name: 'analyst-agent sessions', connectionTimeoutMillis: 5_000, query_timeout: 30_000, statement_timeout: 30_000, keepAlive: true };
}

/** Connections one instance opens to APP_DB (turns of different sessions run side by side). */
const MAX_CONNECTIONS = 10;

/**
 * Connects to the PostgreSQL application database named by APP_DB, creates its schema when
 * missing (safe when several instances start at once), sweeps idle sessions once and starts the
 * background health check and sweep.
 * @throws ConfigurationError naming APP_DB (with the URL's password removed) when the server
 *   cannot be reached, refuses the login, or holds a newer schema.
 * @example
 * const sessions = await openPostgresStore({ url: 'postgres://analyst:secret@db:5432/analyst_app', ttlMs: 168 * 3_600_000, leaseMs: 30_000, logger });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const requested = connectionSettings(options.url);
  // One connection first, as libpq would make it: with `prefer` (the default) it learns whether
  // the server speaks TLS, and the pool's connections then go the way it went.
  const probe = await connectLibpq(requested).catch((error: unknown) => {
    throw new ConfigurationError(`APP_DB: ${safeUrl(options.url)} cannot be opened as the application database: ${redactConnectionUrl((error as Error).message, options.url)}`);
  });
  await probe.client.end().catch(() => undefined);
  const connection = { ...requested, connectionString: probe.connectionString };
  const pool = new pg.Pool({ ...connection, max: MAX_CONNECTIONS, idleTimeoutMillis: 30_000 });
  const store = new PostgresStore(pool, options, connection);
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } finally {
      client.release();
    }
    await store.start();
    return store;
  } catch (error) {
    await store.close();
    if (ConfigurationError.isInstance(error)) throw error;
    const detail = connectionFailureMessage(error);
    throw new ConfigurationError(`APP_DB: ${safeUrl(options.url)} cannot be opened as the application database: ${redactConnectionUrl(detail, options.url)}`);
  }
}
