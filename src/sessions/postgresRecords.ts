/**
 * The statements of the PostgreSQL session store (postgresStore.ts): sessions, their turns and
 * messages, artifacts, pages and expiry, as SQL over the application database. Each call runs
 * through the health guard (postgresHealth.ts), so a connection failure rejects with
 * StorageUnavailableError; reads that must agree (a session and its turns) share one snapshot.
 * The store around it adds what is not SQL: the per-session order of turns, leases, the
 * background sweep and health check, opening and closing.
 */
import { randomUUID } from 'node:crypto';
import type { StoredMessage } from '@langchain/core/messages';
import type pg from 'pg';
import { StorageUnavailableError } from '../errors/index.ts';
import { isConnectionFailure, type PostgresHealth } from './postgresHealth.ts';
import type { Lease } from './postgresLease.ts';
import { ownedBy, SESSION_COLUMNS, summaryOfRow, textColumns, TURN_COLUMNS, turnOfRow, type PostgresSessionRow, type PostgresTurnRow } from './postgresRows.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, type SessionPage } from './sessionPaging.ts';
import { titleOf, type SessionHistory, type SessionSummary, type TurnInput } from './sessionRecords.ts';
import type { RecentHistory } from './sessionStore.ts';
import { toChatMessages, toStoredMessages } from './storedMessages.ts';

/** A foreign key violation: the session was deleted between the check and the write. */
const FOREIGN_KEY_VIOLATION = '23503';

export interface PostgresRecordsOptions {
  pool: pg.Pool;
  health: PostgresHealth;
  /** Sessions idle longer than this are expired (reads skip them); 0 keeps them forever. */
  ttlMs: number;
  /** How long a lease lasts; a stored turn extends its lease by this much. */
  leaseMs: number;
  /** The clock for session timestamps and expiry. */
  now: () => number;
}

/**
 * The session records in PostgreSQL; the methods answer as SessionStore's do (sessionStore.ts).
 * @example
 * const records = new PostgresRecords({ pool, health, ttlMs: 0, leaseMs: 30_000, now: Date.now });
 * const session = await records.create('alice');
 */
export class PostgresRecords {
  constructor(private readonly options: PostgresRecordsOptions) {}

  async create(owner?: string): Promise<SessionSummary> {
    const at = new Date(this.options.now());
    const id = randomUUID();
    await this.query('INSERT INTO sessions (id, title, created_at, updated_at, turns, owner) VALUES ($1, NULL, $2, $2, 0, $3)', [id, at.toISOString(), owner ?? null]);
    return { id, title: null, createdAt: at, updatedAt: at, turns: 0 };
  }

  async get(id: string, owner?: string): Promise<SessionSummary | undefined> {
    const params: unknown[] = [id, this.cutoff()];
    const rows = await this.query<PostgresSessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 AND updated_at >= $2 AND ${ownedBy(owner, params)}`, params);
    return rows[0] ? summaryOfRow(rows[0]) : undefined;
  }

  /** The messages of the last `limit` turns (every turn without one). */
  async recentHistory(id: string, owner?: string, limit?: number): Promise<RecentHistory> {
    // One statement: the turn count and the messages of the last turns come from one snapshot.
    const params: unknown[] = [id, this.cutoff(), limit ?? null];
    const rows = await this.query<{ turns: number; message: StoredMessage | null }>(
      `SELECT s.turns, m.message FROM sessions s
       LEFT JOIN messages m ON m.session_id = s.id AND m.turn_seq > greatest(0, s.turns - coalesce($3::integer, s.turns))
       WHERE s.id = $1 AND s.updated_at >= $2 AND s.${ownedBy(owner, params)} ORDER BY m.seq`,
      params,
    );
    const stored = rows.flatMap((row) => (row.message ? [row.message] : []));
    return { messages: await toChatMessages(stored), omittedTurns: limit === undefined ? 0 : Math.max(0, (rows[0]?.turns ?? 0) - limit) };
  }

  /**
   * Stores one turn, numbered after the last one, in one transaction. With the lease the turn
   * runs under, the lease is checked (and extended) in the same transaction: a turn whose lease
   * another instance took over is refused with StorageUnavailableError rather than stored on top
   * of a turn it never saw.
   * @example
   * await records.appendTurn(id, turn, leases.current(id)); // false when the session is gone
   */
  async appendTurn(id: string, turn: TurnInput, lease: Lease | undefined): Promise<boolean> {
    const stored = JSON.stringify(toStoredMessages(turn.messages));
    return this.transaction(async (client) => {
      const session = (await client.query<{ turns: number }>('SELECT turns FROM sessions WHERE id = $1 FOR UPDATE', [id])).rows[0];
      if (!session) return false;
      if (lease) {
        const kept = await client.query(
          `INSERT INTO session_leases (session_id, holder, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
           ON CONFLICT (session_id) DO UPDATE SET expires_at = excluded.expires_at WHERE session_leases.holder = excluded.holder`,
          [id, lease.holder, this.options.leaseMs],
        );
        if (kept.rowCount === 0) {
          throw new StorageUnavailableError('this turn took longer than its hold on the session (SESSION_LEASE_SECONDS) while the application database could not be reached, and another instance has taken the session over; the turn was not stored. Ask again.');
        }
      }
      const seq = session.turns + 1;
      const texts = textColumns(turn.question, turn.answer);
      await client.query(
        `INSERT INTO turns (session_id, seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at, exact_text, figures)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [id, seq, texts.question, texts.answer, turn.finished, turn.stopReason, turn.iterations, JSON.stringify(turn.toolCalls), JSON.stringify(turn.usage), turn.startedAt.toISOString(), turn.finishedAt.toISOString(), texts.exact, turn.figures ? JSON.stringify(turn.figures) : null],
      );
      await client.query(
        `INSERT INTO messages (session_id, seq, turn_seq, message)
         SELECT $1::text, (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = $1::text) + position, $2::integer, message
         FROM json_array_elements($3::json) WITH ORDINALITY AS stored (message, position)`,
        [id, seq, stored],
      );
      await client.query('UPDATE sessions SET updated_at = $1, turns = $2, title = coalesce(title, $3) WHERE id = $4', [new Date(this.options.now()).toISOString(), seq, titleOf(turn.question), id]);
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

  /**
   * Deletes sessions idle past the TTL, never one with a turn in progress on any instance (the
   * ids in `running` are this instance's; other instances' hold a lease). @returns how many.
   * @example
   * await records.expireIdle(['3f0c…']); // 2
   */
  async expireIdle(running: readonly string[]): Promise<number> {
    if (this.options.ttlMs <= 0) return 0;
    const rows = await this.query<{ id: string }>(
      `DELETE FROM sessions WHERE updated_at < $1 AND NOT (id = ANY ($2::text[]))
         AND NOT EXISTS (SELECT 1 FROM session_leases l WHERE l.session_id = sessions.id AND l.expires_at > clock_timestamp())
       RETURNING id`,
      [this.cutoff(), [...running]],
    );
    return rows.length;
  }

  async saveArtifact(sessionId: string, key: string, value: unknown): Promise<boolean> {
    try {
      const rows = await this.query(
        `INSERT INTO session_artifacts (session_id, key, value, updated_at) SELECT $1::text, $2::text, $3::json, $4::timestamptz WHERE EXISTS (SELECT 1 FROM sessions WHERE id = $1::text)
         ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at RETURNING 1`,
        [sessionId, key, JSON.stringify(value) ?? 'null', new Date(this.options.now()).toISOString()],
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

  private async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    return (await this.options.health.guard(() => this.options.pool.query<R>(sql, params))).rows;
  }

  /** Runs `work` in one transaction on one connection; a connection that failed is not reused. */
  private transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return this.options.health.guard(async () => {
      const client = await this.options.pool.connect();
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
    return new Date(this.options.ttlMs > 0 ? this.options.now() - this.options.ttlMs : 0).toISOString();
  }
}
