/**
 * Conversations kept durably in the application database (SQLite, separate from the read-only
 * data database): each turn's question, answer, tool calls with results, token usage and
 * timestamps, plus the exact LangChain messages so the model's history can be rebuilt after a
 * restart. A turn is written in one transaction with `synchronous = FULL`: once `appendTurn`
 * returns, the turn survives a crash or power loss. Turns of one session are serialised in
 * process (`runExclusive`), and sessions idle longer than the TTL expire.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { StoredMessage } from '@langchain/core/messages';
import { ConfigurationError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { openAppDatabase } from './appDatabase.ts';
import { AppDatabaseGuard, type StorageHealth } from './appDatabaseGuard.ts';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, type SessionPage } from './sessionPaging.ts';
import { titleOf, type SessionHistory, type TurnInput } from './sessionRecords.ts';
import { prepareSessionStatements, summaryOf, turnOf, type SessionRow, type SessionStatements } from './sessionRows.ts';
import { SessionQueue } from './sessionQueue.ts';
import { toStoredMessages } from './storedMessages.ts';
import type { SkillRecords } from '../skills/sdk/records.ts';
import { SqliteSkillRecords } from './sqliteSkillRecords.ts';

/** How often idle sessions are swept by default. */
const DEFAULT_EXPIRY_INTERVAL_MS = 10 * 60 * 1000;

/** A conversation, as /chat uses it. */
export interface Session {
  id: string;
  title: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Turns stored when the session was read. */
  turns: number;
  /**
   * Every stored message, in order, as stored (storedMessages.ts turns them into LangChain's).
   * Read from the database each time it is accessed, so inside `runExclusive` it includes every
   * turn committed before.
   */
  readonly messages: StoredMessage[];
  /** The messages of the last `limit` turns (every turn without one), with the number of older turns left out (counted, never read). */
  recentHistory(limit?: number): { messages: StoredMessage[]; omittedTurns: number };
}

export interface SqliteSessionStoreOptions {
  /** The SQLite file; created with its schema (and its folder) when missing. */
  path: string;
  /** Sessions idle longer than this expire; 0 keeps them forever. */
  ttlMs: number;
  /** Sweep interval of idle sessions (also swept once at open); 0 disables the timer. */
  expiryIntervalMs?: number;
  /** How often GET /health's view of the file is refreshed in the background (default 1 s; 0: never). */
  healthCheckIntervalMs?: number;
  logger?: Logger;
  /** The clock, for tests. */
  now?: () => number;
}

export class SqliteSessionStore {
  private readonly database: Database.Database;
  private readonly queue = new SessionQueue();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly statements: SessionStatements;
  /** Refuses writes once the file was deleted, replaced or found damaged (appDatabaseGuard.ts). */
  private readonly guard: AppDatabaseGuard;

  /** Opens (or creates) the database; sweeps idle sessions once and starts the sweep timer. */
  constructor(options: SqliteSessionStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    this.database = openAppDatabase(options.path);
    this.guard = new AppDatabaseGuard(options.path, options.logger);
    this.guard.startMonitor(options.healthCheckIntervalMs ?? 1_000);
    this.statements = prepareSessionStatements(this.database);
    this.expireIdleLogged();
    const interval = options.expiryIntervalMs ?? DEFAULT_EXPIRY_INTERVAL_MS;
    if (interval > 0 && this.ttlMs > 0) {
      this.timer = setInterval(() => this.expireIdleLogged(), interval);
      this.timer.unref();
    }
  }

  /**
   * Starts a conversation; it is stored at once, so a retry after a failed first question finds it.
   * @param owner the identity of the API key creating it (never the key); omitted without API keys.
   */
  create(owner?: string): Session {
    const at = this.timestamp();
    const id = randomUUID();
    this.guard.write(() => this.statements.insertSession.run(id, at, at, owner ?? null));
    return this.sessionFrom({ id, title: null, created_at: at, updated_at: at, turns: 0, owner: owner ?? null });
  }

  /**
   * The session, or undefined when it never existed, was deleted or has been idle past the TTL.
   * With an `owner`, also undefined when the session belongs to someone else (or to no one):
   * the caller cannot tell another key's session from one that does not exist.
   */
  get(id: string, owner?: string): Session | undefined {
    const row = this.guard.read(() => this.liveRow(id, owner));
    return row ? this.sessionFrom(row) : undefined;
  }

  /**
   * Stores one answered turn: the turn, its messages and the session's new `updated_at`,
   * `turns` and (first turn) title, in one durable transaction.
   * @returns false when the session no longer exists (deleted while the turn ran): nothing is stored.
   */
  appendTurn(id: string, turn: TurnInput): boolean {
    const stored = toStoredMessages(turn.messages);
    const write = this.database.transaction((): boolean => {
      const session = this.statements.session.get(id);
      if (!session) return false;
      const seq = session.turns + 1;
      this.statements.insertTurn.run(
        id,
        seq,
        turn.question,
        turn.answer,
        turn.finished ? 1 : 0,
        turn.stopReason,
        turn.iterations,
        JSON.stringify(turn.toolCalls),
        JSON.stringify(turn.usage),
        turn.figures ? JSON.stringify(turn.figures) : null,
        turn.startedAt.toISOString(),
        turn.finishedAt.toISOString(),
      );
      let messageSeq = this.statements.lastMessageSeq.get(id)?.seq ?? 0;
      for (const message of stored) this.statements.insertMessage.run(id, ++messageSeq, seq, JSON.stringify(message));
      this.statements.touchSession.run(this.timestamp(), seq, titleOf(turn.question), id);
      return true;
    });
    return this.guard.write(() => write.immediate());
  }

  /**
   * Sessions, most recently updated first; with an `owner`, only that owner's.
   * @throws RangeError for a limit out of range or a cursor this store did not make.
   */
  list(options: { limit?: number; cursor?: string | undefined; owner?: string | undefined } = {}): SessionPage {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new RangeError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const cutoff = this.cutoff();
    let rows: SessionRow[];
    if (options.cursor === undefined) {
      rows = this.guard.read(() => (options.owner === undefined ? this.statements.firstPage.all(cutoff, limit + 1) : this.statements.firstOwnedPage.all(options.owner, cutoff, limit + 1)));
    } else {
      const after = decodeCursor(options.cursor);
      if (!after) throw new RangeError('cursor is not a next_cursor returned by this service');
      rows = this.guard.read(() =>
        options.owner === undefined
          ? this.statements.nextPage.all(cutoff, after.updatedAt, after.id, limit + 1)
          : this.statements.nextOwnedPage.all(options.owner, cutoff, after.updatedAt, after.id, limit + 1),
      );
    }
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map(summaryOf),
      nextCursor: rows.length > limit && last ? encodeCursor(last.updated_at, last.id) : null,
    };
  }

  /**
   * The session with every turn (tool calls included), or undefined like `get` (owner included).
   * With `page`, only the turns after `page.after` (a seq), at most `page.limit`, and `nextAfter`.
   */
  history(id: string, owner?: string, page?: { limit: number; after?: number }): SessionHistory | undefined {
    const read = this.database.transaction((): SessionHistory | undefined => {
      const row = this.liveRow(id, owner);
      if (!row) return undefined;
      if (!page) return { ...summaryOf(row), turnRecords: this.statements.turns.all(id).map(turnOf) };
      const rows = this.statements.turnsPage.all(id, page.after ?? 0, page.limit + 1);
      const more = rows.length > page.limit;
      return { ...summaryOf(row), turnRecords: rows.slice(0, page.limit).map(turnOf), nextAfter: more ? rows[page.limit - 1]!.seq : null };
    });
    return this.guard.read(read);
  }

  /**
   * Deletes a session and everything in it; with an `owner`, only when the session is theirs.
   * @returns false when there was no such (live, owned) session.
   */
  delete(id: string, owner?: string): boolean {
    const remove = this.database.transaction(() => {
      // Without a key (owner undefined) only sessions without an owner: a key's stay private.
      if ((this.statements.session.get(id)?.owner ?? null) !== (owner ?? null)) return false;
      const live = this.liveRow(id, owner) !== undefined;
      this.statements.deleteSession.run(id);
      return live;
    });
    return this.guard.write(() => remove.immediate());
  }

  /** Deletes sessions idle past the TTL (never one with a turn in progress). @returns how many. */
  expireIdle(): number {
    if (this.ttlMs <= 0) return 0;
    return this.statements.deleteIdle.run(this.cutoff(), JSON.stringify(this.queue.ids())).changes;
  }

  /** Runs `work` after every earlier piece of work on the same session has finished. */
  async runExclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    // A turn that could not be stored is refused before it runs.
    this.guard.assertWritable();
    return this.queue.run(id, work);
  }

  /** Keeps `value` (JSON) under `key` in the session; false when the session is gone. */
  saveArtifact(id: string, key: string, value: unknown): boolean {
    const text = JSON.stringify(value) ?? 'null';
    return this.guard.write(() => this.statements.upsertArtifact.run({ id, key, value: text, at: this.timestamp() }).changes > 0);
  }

  /** The value saved under `key`, or undefined. */
  artifact(id: string, key: string): unknown {
    const row = this.guard.read(() => this.statements.artifact.get(id, key));
    return row ? (JSON.parse(row.value) as unknown) : undefined;
  }

  /** The application database as GET /health reports it (no I/O). */
  storageHealth(): StorageHealth {
    return this.guard.status();
  }

  /** Stops the sweep timer and closes the database. */
  close(): void {
    this.guard.stop();
    if (this.timer) clearInterval(this.timer);
    if (this.database.open) this.database.close();
  }

  private expireIdleLogged(): void {
    try {
      const removed = this.expireIdle();
      if (removed > 0) this.logger?.info({ removed, ttl_hours: this.ttlMs / 3_600_000 }, 'expired idle sessions');
    } catch (error) {
      this.logger?.warn({ err: error }, 'could not expire idle sessions');
    }
  }

  /** The row of a live session; with an `owner`, only when it is theirs; without one, only when it has none. */
  private liveRow(id: string, owner?: string): SessionRow | undefined {
    const row = this.statements.session.get(id);
    if (row && row.owner !== (owner ?? null)) return undefined;
    return row && row.updated_at >= this.cutoff() ? row : undefined;
  }

  /** Sessions updated before this instant are expired; the epoch (nothing expires) when the TTL is 0. */
  private cutoff(): string {
    return this.ttlMs > 0 ? new Date(this.now() - this.ttlMs).toISOString() : new Date(0).toISOString();
  }

  /** The records of the skill `namespace` (skills/sdk/records.ts), in this file. */
  skillRecords(namespace: string): SkillRecords {
    return new SqliteSkillRecords(this.database, this.guard, namespace, () => this.timestamp());
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString();
  }

  private sessionFrom(row: SessionRow): Session {
    const statements = this.statements;
    // Only the last turns are read and parsed: a question costs the same on turn 5 and turn 500.
    const recentHistory = (limit?: number) => {
      const omittedTurns = limit === undefined ? 0 : Math.max(0, (statements.session.get(row.id)?.turns ?? 0) - limit);
      const stored = statements.recentMessages.all(row.id, omittedTurns).map((r) => JSON.parse(r.message) as StoredMessage);
      return { messages: stored, omittedTurns };
    };
    return {
      ...summaryOf(row),
      get messages(): StoredMessage[] {
        return recentHistory().messages;
      },
      recentHistory,
    };
  }
}

/**
 * Opens the application database named by APP_DB.
 * @throws ConfigurationError naming APP_DB when the file cannot be opened or has a newer schema.
 */
export function openSessionStore(options: SqliteSessionStoreOptions): SqliteSessionStore {
  try {
    return new SqliteSessionStore(options);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw new ConfigurationError(`APP_DB: ${options.path} cannot be opened as the application database: ${(error as Error).message}`);
  }
}
