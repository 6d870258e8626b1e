/**
 * The SessionStore (sessionStore.ts) over PostgreSQL (APP_DB=postgres://…), for any number of
 * service instances sharing conversations: the same records as the SQLite store (sessions with
 * owner, title and TTL, turns with tool calls, usage and the LangChain messages, artifacts such
 * as comparison ids), the same pages, cursors and RangeErrors, the same owner rule.
 *
 * Turns of one session run one at a time across all instances: in this process a queue per
 * session keeps arrival order, then a lease row in PostgreSQL (postgresLease.ts) keeps other
 * instances out while the turn runs. A turn is appended in one transaction that locks the
 * session row and numbers the turn `turns + 1`, so turns never collide; once appendTurn
 * resolves the turn is committed (durable with PostgreSQL's default `synchronous_commit = on`).
 * A connection failure rejects with StorageUnavailableError (503), as a broken SQLite file does.
 */
import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type StoredMessage } from '@langchain/core/messages';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { HISTORY_TURNS_READ } from '../agent/constants.ts';
import { ConfigurationError, StorageUnavailableError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { redactConnectionUrl, safeUrl } from '../shared/redact.ts';
import type { StorageHealth } from './appDatabaseGuard.ts';
import { isConnectionFailure, PostgresHealth } from './postgresHealth.ts';
import { SessionLeases } from './postgresLease.ts';
import { ownedBy, SESSION_COLUMNS, summaryOfRow, TURN_COLUMNS, turnOfRow, type PostgresSessionRow, type PostgresTurnRow } from './postgresRows.ts';
import { migratePostgres } from './postgresSchema.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, type SessionPage } from './sessionPaging.ts';
import { titleOf, type SessionHistory, type SessionSummary, type TurnInput } from './sessionRecords.ts';
import type { RecentHistory, SessionStore } from './sessionStore.ts';

const DEFAULT_EXPIRY_INTERVAL_MS = 10 * 60 * 1000;
export const DEFAULT_LEASE_MS = 30_000;
/** A foreign key violation: the session was deleted between the check and the write. */
const FOREIGN_KEY_VIOLATION = '23503';

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
  /** Connections this instance may open (default 10). */
  maxConnections?: number;
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
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly health: PostgresHealth;
  private readonly leases: SessionLeases;
  private timer: NodeJS.Timeout | undefined;

  /** Use openPostgresStore, which also creates the schema. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresStoreOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.health = new PostgresHealth(pool, options.url, options.logger);
    // An idle pooled connection that breaks (server restart) is reported here, not thrown.
    pool.on('error', (error) => this.health.markDown(error));
    this.leases = new SessionLeases({ pool, connection: connectionSettings(options.url), health: this.health, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, logger: options.logger });
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

  /** This instance's id, as it appears in lease rows. */
  get instanceId(): string {
    return this.leases.instanceId;
  }

  async create(owner?: string): Promise<SessionSummary> {
    const at = new Date(this.now());
    const id = randomUUID();
    await this.query('INSERT INTO sessions (id, title, created_at, updated_at, turns, owner) VALUES ($1, NULL, $2, $2, 0, $3)', [id, at.toISOString(), owner ?? null]);
    return { id, title: null, createdAt: at, updatedAt: at, turns: 0 };
  }

  async get(id: string, owner?: string): Promise<SessionSummary | undefined> {
    const params: unknown[] = [id, this.cutoff()];
    const rows = await this.query<PostgresSessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 AND updated_at >= $2 AND ${ownedBy(owner, params)}`, params);
    return rows[0] ? summaryOfRow(rows[0]) : undefined;
  }

  async recentHistory(id: string, owner?: string): Promise<RecentHistory> {
    // One statement: the turn count and the messages of the last turns come from one snapshot.
    const params: unknown[] = [id, this.cutoff(), HISTORY_TURNS_READ];
    const rows = await this.query<{ turns: number; message: StoredMessage | null }>(
      `SELECT s.turns, m.message FROM sessions s
       LEFT JOIN messages m ON m.session_id = s.id AND m.turn_seq > greatest(0, s.turns - $3)
       WHERE s.id = $1 AND s.updated_at >= $2 AND s.${ownedBy(owner, params)} ORDER BY m.seq`,
      params,
    );
    const stored = rows.flatMap((row) => (row.message ? [row.message] : []));
    return { messages: mapStoredMessagesToChatMessages(stored), omittedTurns: Math.max(0, (rows[0]?.turns ?? 0) - HISTORY_TURNS_READ) };
  }

  /**
   * Stores one turn, numbered after the last one, in one transaction. Inside runExclusive the
   * session's lease is checked (and extended) in the same transaction: a turn whose lease another
   * instance took over is refused with StorageUnavailableError rather than stored on top of a
   * turn it never saw.
   */
  async appendTurn(id: string, turn: TurnInput): Promise<boolean> {
    const stored = JSON.stringify(mapChatMessagesToStoredMessages(turn.messages));
    const lease = this.leases.current(id);
    return this.transaction(async (client) => {
      const session = (await client.query<{ turns: number }>('SELECT turns FROM sessions WHERE id = $1 FOR UPDATE', [id])).rows[0];
      if (!session) return false;
      if (lease) {
        const kept = await client.query(
          `INSERT INTO session_leases (session_id, holder, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
           ON CONFLICT (session_id) DO UPDATE SET expires_at = excluded.expires_at WHERE session_leases.holder = excluded.holder`,
          [id, lease.holder, this.options.leaseMs ?? DEFAULT_LEASE_MS],
        );
        if (kept.rowCount === 0) {
          throw new StorageUnavailableError('this turn took longer than its hold on the session (SESSION_LEASE_SECONDS) while the application database could not be reached, and another instance has taken the session over; the turn was not stored. Ask again.');
        }
      }
      const seq = session.turns + 1;
      await client.query(
        `INSERT INTO turns (session_id, seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [id, seq, turn.question, turn.answer, turn.finished, turn.stopReason, turn.iterations, JSON.stringify(turn.toolCalls), JSON.stringify(turn.usage), turn.startedAt.toISOString(), turn.finishedAt.toISOString()],
      );
      await client.query(
        `INSERT INTO messages (session_id, seq, turn_seq, message)
         SELECT $1::text, (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = $1::text) + position, $2::integer, message
         FROM json_array_elements($3::json) WITH ORDINALITY AS stored (message, position)`,
        [id, seq, stored],
      );
      await client.query('UPDATE sessions SET updated_at = $1, turns = $2, title = coalesce(title, $3) WHERE id = $4', [new Date(this.now()).toISOString(), seq, titleOf(turn.question), id]);
      return true;
    });
  }

  async list(options: { limit?: number; cursor?: string | undefined; owner?: string | undefined } = {}): Promise<SessionPage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new RangeError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const params: unknown[] = [this.cutoff(), limit + 1];
    const conditions = ['updated_at >= $1', ownedBy(options.owner, params)];
    if (options.cursor !== undefined) {
      const after = decodeCursor(options.cursor);
      if (!after) throw new RangeError('cursor is not a next_cursor returned by this service');
      params.push(after.updatedAt, after.id);
      conditions.push(`(updated_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    const rows = await this.query<PostgresSessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${conditions.join(' AND ')} ORDER BY updated_at DESC, id DESC LIMIT $2`, params);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { sessions: page.map(summaryOfRow), nextCursor: rows.length > limit && last ? encodeCursor(last.updated_at.toISOString(), last.id) : null };
  }

  async history(id: string, owner?: string, page?: { limit: number; after?: number }): Promise<SessionHistory | undefined> {
    // One snapshot for the session and its turns.
    return this.transaction(async (client) => {
      const params: unknown[] = [id, this.cutoff()];
      const row = (await client.query<PostgresSessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 AND updated_at >= $2 AND ${ownedBy(owner, params)}`, params)).rows[0];
      if (!row) return undefined;
      if (!page) return { ...summaryOfRow(row), turnRecords: (await client.query<PostgresTurnRow>(`SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = $1 ORDER BY seq`, [id])).rows.map(turnOfRow) };
      const rows = (await client.query<PostgresTurnRow>(`SELECT ${TURN_COLUMNS} FROM turns WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [id, page.after ?? 0, page.limit + 1])).rows;
      const more = rows.length > page.limit;
      return { ...summaryOfRow(row), turnRecords: rows.slice(0, page.limit).map(turnOfRow), nextAfter: more ? rows[page.limit - 1]!.seq : null };
    }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  async delete(id: string, owner?: string): Promise<boolean> {
    const params: unknown[] = [id, this.cutoff()];
    // An expired session is deleted too, but reported as not there (as `get` would).
    const rows = await this.query<{ live: boolean }>(`DELETE FROM sessions WHERE id = $1 AND ${ownedBy(owner, params)} RETURNING updated_at >= $2 AS live`, params);
    return rows[0]?.live === true;
  }

  /** Deletes sessions idle past the TTL, never one with a turn in progress on any instance. @returns how many. */
  async expireIdle(): Promise<number> {
    if (this.ttlMs <= 0) return 0;
    const rows = await this.query<{ id: string }>(
      `DELETE FROM sessions WHERE updated_at < $1 AND NOT (id = ANY ($2::text[]))
         AND NOT EXISTS (SELECT 1 FROM session_leases l WHERE l.session_id = sessions.id AND l.expires_at > clock_timestamp())
       RETURNING id`,
      [this.cutoff(), [...this.queues.keys()]],
    );
    return rows.length;
  }

  runExclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const run = () => this.leases.hold(id, work);
    const current = previous.then(run, run);
    const settled = current.catch(() => undefined);
    this.queues.set(id, settled);
    return current.finally(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
  }

  async saveArtifact(sessionId: string, key: string, value: unknown): Promise<boolean> {
    try {
      const rows = await this.query(
        `INSERT INTO session_artifacts (session_id, key, value, updated_at) SELECT $1::text, $2::text, $3::json, $4::timestamptz WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1::text)
         ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at RETURNING 1`,
        [sessionId, key, JSON.stringify(value) ?? 'null', new Date(this.now()).toISOString()],
      );
      return rows.length > 0;
    } catch (error) {
      if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) return false;
      throw error;
    }
  }

  async artifact<T = unknown>(sessionId: string, key: string): Promise<T | undefined> {
    const rows = await this.query<{ value: T }>('SELECT value FROM session_artifacts WHERE session_id = $1 AND key = $2', [sessionId, key]);
    return rows[0]?.value;
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

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    return (await this.health.guard(() => this.pool.query<R>(sql, params))).rows;
  }

  /** Runs `work` in one transaction on one connection; a connection that failed is not reused. */
  private transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return this.health.guard(async () => {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query(begin);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken = isConnectionFailure(error);
        if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  /** Sessions updated before this instant are expired; the epoch (nothing expires) when the TTL is 0. */
  private cutoff(): string {
    return new Date(this.ttlMs > 0 ? this.now() - this.ttlMs : 0).toISOString();
  }
}

/** The pool's connection settings: bounded waits, so a server that went away fails calls instead of hanging them. */
function connectionSettings(url: string): pg.ClientConfig {
  return { connectionString: url, application_name: 'analyst-agent sessions', connectionTimeoutMillis: 5_000, query_timeout: 30_000, statement_timeout: 30_000, keepAlive: true };
}

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
  const pool = new pg.Pool({ ...connectionSettings(options.url), max: options.maxConnections ?? 10, idleTimeoutMillis: 30_000 });
  const store = new PostgresStore(pool, options);
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
    const detail = (error as Error).message || String((error as { code?: unknown }).code ?? error);
    throw new ConfigurationError(`APP_DB: ${safeUrl(options.url)} cannot be opened as the application database: ${redactConnectionUrl(detail, options.url)}`);
  }
}
