/**
 * Conversations kept durably in the application database (SQLite, separate from the read-only
 * data database): each turn's question, answer, tool calls with results, token usage and
 * timestamps, plus the exact LangChain messages so the model's history can be rebuilt after a
 * restart. A turn is written in one transaction with `synchronous = FULL`: once `appendTurn`
 * returns, the turn survives a crash or power loss. Turns of one session are serialised in
 * process (`runExclusive`), and sessions idle longer than the TTL expire.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages, type BaseMessage, type StoredMessage } from '@langchain/core/messages';
import type { AgentRunResult, Usage } from '../agent/runLoop.ts';
import type { ToolCallRecord } from '../agent/toolExecution.ts';
import { ConfigurationError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';

/** The schema this code writes, kept in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

/** Titles are the first question, cut to this many characters. */
const TITLE_CHARS = 80;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

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
   * The model history (every stored turn's messages, in order). Read from the database each
   * time it is accessed, so inside `runExclusive` it includes every turn committed before.
   */
  readonly messages: BaseMessage[];
}

/** One answered question, as /chat hands it over. */
export interface TurnInput extends Pick<AgentRunResult, 'messages' | 'answer' | 'finished' | 'stopReason' | 'iterations' | 'toolCalls' | 'usage'> {
  question: string;
  startedAt: Date;
  finishedAt: Date;
}

/** One stored turn, as the history API shows it. */
export interface TurnRecord {
  seq: number;
  question: string;
  answer: string;
  finished: boolean;
  stopReason: string;
  iterations: number;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  startedAt: Date;
  finishedAt: Date;
}

export interface SessionSummary {
  id: string;
  title: string | null;
  createdAt: Date;
  updatedAt: Date;
  turns: number;
}

export interface SessionHistory extends SessionSummary {
  turnRecords: TurnRecord[];
}

export interface SessionPage {
  sessions: SessionSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface SqliteSessionStoreOptions {
  /** The SQLite file; created with its schema (and its folder) when missing. */
  path: string;
  /** Sessions idle longer than this expire; 0 keeps them forever. */
  ttlMs: number;
  /** Sweep interval of idle sessions (also swept once at open); 0 disables the timer. */
  expiryIntervalMs?: number;
  logger?: Logger;
  /** The clock, for tests. */
  now?: () => number;
}

interface SessionRow {
  id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  turns: number;
}

interface TurnRow {
  seq: number;
  question: string;
  answer: string;
  finished: number;
  stop_reason: string;
  iterations: number;
  tool_calls: string;
  usage: string;
  started_at: string;
  finished_at: string;
}

const schema = `
CREATE TABLE IF NOT EXISTS sessions (
  id         TEXT PRIMARY KEY,
  title      TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  turns      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_by_updated_at ON sessions (updated_at, id);
CREATE TABLE IF NOT EXISTS turns (
  session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  question    TEXT NOT NULL,
  answer      TEXT NOT NULL,
  finished    INTEGER NOT NULL,
  stop_reason TEXT NOT NULL,
  iterations  INTEGER NOT NULL,
  tool_calls  TEXT NOT NULL,
  usage       TEXT NOT NULL,
  started_at  TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  turn_seq   INTEGER NOT NULL,
  message    TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
`;

/** An opaque page cursor: the last row's `updated_at|id`, base64url. */
export function encodeCursor(updatedAt: string, id: string): string {
  return Buffer.from(`${updatedAt}|${id}`, 'utf8').toString('base64url');
}

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The position a cursor stands for, or undefined when it is not one this store made. */
export function decodeCursor(cursor: string): { updatedAt: string; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return undefined;
  const updatedAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (!isoTimestamp.test(updatedAt) || id === '' || encodeCursor(updatedAt, id) !== cursor) return undefined;
  return { updatedAt, id };
}

/** The first question on one line, cut to TITLE_CHARS characters (never inside a character). */
export function titleOf(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length <= TITLE_CHARS ? line : `${chars.slice(0, TITLE_CHARS - 1).join('').trimEnd()}…`;
}

export class SqliteSessionStore {
  private readonly database: Database.Database;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly logger: Logger | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly statements: ReturnType<typeof prepareStatements>;

  /** Opens (or creates) the database; sweeps idle sessions once and starts the sweep timer. */
  constructor(options: SqliteSessionStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
    mkdirSync(path.dirname(options.path), { recursive: true });
    const database = new Database(options.path);
    try {
      database.pragma('busy_timeout = 5000');
      database.pragma('journal_mode = WAL');
      // FULL: a committed transaction is on disk before commit returns, even in WAL mode.
      database.pragma('synchronous = FULL');
      database.pragma('foreign_keys = ON');
      migrate(database);
    } catch (error) {
      database.close();
      throw error;
    }
    this.database = database;
    this.statements = prepareStatements(database);
    this.expireIdleLogged();
    const interval = options.expiryIntervalMs ?? DEFAULT_EXPIRY_INTERVAL_MS;
    if (interval > 0 && this.ttlMs > 0) {
      this.timer = setInterval(() => this.expireIdleLogged(), interval);
      this.timer.unref();
    }
  }

  /** Starts a conversation; it is stored at once, so a retry after a failed first question finds it. */
  create(): Session {
    const at = this.timestamp();
    const id = randomUUID();
    this.statements.insertSession.run(id, at, at);
    return this.sessionFrom({ id, title: null, created_at: at, updated_at: at, turns: 0 });
  }

  /** The session, or undefined when it never existed, was deleted or has been idle past the TTL. */
  get(id: string): Session | undefined {
    const row = this.liveRow(id);
    return row ? this.sessionFrom(row) : undefined;
  }

  /**
   * Stores one answered turn: the turn, its messages and the session's new `updated_at`,
   * `turns` and (first turn) title, in one durable transaction.
   * @returns false when the session no longer exists (deleted while the turn ran): nothing is stored.
   */
  appendTurn(id: string, turn: TurnInput): boolean {
    const stored = mapChatMessagesToStoredMessages(turn.messages);
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
        turn.startedAt.toISOString(),
        turn.finishedAt.toISOString(),
      );
      let messageSeq = this.statements.lastMessageSeq.get(id)?.seq ?? 0;
      for (const message of stored) this.statements.insertMessage.run(id, ++messageSeq, seq, JSON.stringify(message));
      this.statements.touchSession.run(this.timestamp(), seq, titleOf(turn.question), id);
      return true;
    });
    return write.immediate();
  }

  /** Sessions, most recently updated first. @throws RangeError for a limit out of range or a cursor this store did not make. */
  list(options: { limit?: number; cursor?: string | undefined } = {}): SessionPage {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw new RangeError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    const cutoff = this.cutoff();
    let rows: SessionRow[];
    if (options.cursor === undefined) {
      rows = this.statements.firstPage.all(cutoff, limit + 1);
    } else {
      const after = decodeCursor(options.cursor);
      if (!after) throw new RangeError('cursor is not a next_cursor returned by this service');
      rows = this.statements.nextPage.all(cutoff, after.updatedAt, after.id, limit + 1);
    }
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map(summaryOf),
      nextCursor: rows.length > limit && last ? encodeCursor(last.updated_at, last.id) : null,
    };
  }

  /** The session with every turn (tool calls included), or undefined like `get`. */
  history(id: string): SessionHistory | undefined {
    const read = this.database.transaction(() => {
      const row = this.liveRow(id);
      if (!row) return undefined;
      return { ...summaryOf(row), turnRecords: this.statements.turns.all(id).map(turnOf) };
    });
    return read();
  }

  /** Deletes a session and everything in it. @returns false when there was no such (live) session. */
  delete(id: string): boolean {
    const remove = this.database.transaction(() => {
      const live = this.liveRow(id) !== undefined;
      this.statements.deleteSession.run(id);
      return live;
    });
    return remove.immediate();
  }

  /** Deletes sessions idle past the TTL (never one with a turn in progress). @returns how many. */
  expireIdle(): number {
    if (this.ttlMs <= 0) return 0;
    return this.statements.deleteIdle.run(this.cutoff(), JSON.stringify([...this.queues.keys()])).changes;
  }

  /** Runs `work` after every earlier piece of work on the same session has finished. */
  async runExclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const current = previous.then(work, work);
    const settled = current.catch(() => undefined);
    this.queues.set(id, settled);
    try {
      return await current;
    } finally {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    }
  }

  /** Stops the sweep timer and closes the database. */
  close(): void {
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

  private liveRow(id: string): SessionRow | undefined {
    const row = this.statements.session.get(id);
    return row && row.updated_at >= this.cutoff() ? row : undefined;
  }

  /** Sessions updated before this instant are expired; the epoch (nothing expires) when the TTL is 0. */
  private cutoff(): string {
    return this.ttlMs > 0 ? new Date(this.now() - this.ttlMs).toISOString() : new Date(0).toISOString();
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString();
  }

  private sessionFrom(row: SessionRow): Session {
    const statements = this.statements;
    return {
      ...summaryOf(row),
      get messages(): BaseMessage[] {
        const stored = statements.messages.all(row.id).map((r) => JSON.parse(r.message) as StoredMessage);
        return mapStoredMessagesToChatMessages(stored);
      },
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

/** Creates the schema on a new file; refuses a file written by a newer version. */
function migrate(database: Database.Database): void {
  database
    .transaction(() => {
      const version = database.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new ConfigurationError(`APP_DB: ${database.name} has schema version ${version}; this service knows version ${SCHEMA_VERSION}. Upgrade the service or point APP_DB at another file.`);
      }
      if (version < SCHEMA_VERSION) {
        database.exec(schema);
        database.pragma(`user_version = ${SCHEMA_VERSION}`);
      }
    })
    .immediate();
}

function prepareStatements(database: Database.Database) {
  return {
    insertSession: database.prepare('INSERT INTO sessions (id, title, created_at, updated_at, turns) VALUES (?, NULL, ?, ?, 0)'),
    session: database.prepare<[string], SessionRow>('SELECT id, title, created_at, updated_at, turns FROM sessions WHERE id = ?'),
    messages: database.prepare<[string], { message: string }>('SELECT message FROM messages WHERE session_id = ? ORDER BY seq'),
    lastMessageSeq: database.prepare<[string], { seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM messages WHERE session_id = ?'),
    insertTurn: database.prepare(
      `INSERT INTO turns (session_id, seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertMessage: database.prepare('INSERT INTO messages (session_id, seq, turn_seq, message) VALUES (?, ?, ?, ?)'),
    touchSession: database.prepare('UPDATE sessions SET updated_at = ?, turns = ?, title = coalesce(title, ?) WHERE id = ?'),
    turns: database.prepare<[string], TurnRow>(
      `SELECT seq, question, answer, finished, stop_reason, iterations, tool_calls, usage, started_at, finished_at
       FROM turns WHERE session_id = ? ORDER BY seq`,
    ),
    firstPage: database.prepare<[string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns FROM sessions
       WHERE updated_at >= ? ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    nextPage: database.prepare<[string, string, string, number], SessionRow>(
      `SELECT id, title, created_at, updated_at, turns FROM sessions
       WHERE updated_at >= ? AND (updated_at, id) < (?, ?)
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    deleteSession: database.prepare('DELETE FROM sessions WHERE id = ?'),
    deleteIdle: database.prepare(`DELETE FROM sessions WHERE updated_at < ? AND id NOT IN (SELECT value FROM json_each(?))`),
  };
}

function summaryOf(row: SessionRow): SessionSummary {
  return { id: row.id, title: row.title, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at), turns: row.turns };
}

function turnOf(row: TurnRow): TurnRecord {
  return {
    seq: row.seq,
    question: row.question,
    answer: row.answer,
    finished: row.finished === 1,
    stopReason: row.stop_reason,
    iterations: row.iterations,
    toolCalls: JSON.parse(row.tool_calls) as ToolCallRecord[],
    usage: JSON.parse(row.usage) as Usage,
    startedAt: new Date(row.started_at),
    finishedAt: new Date(row.finished_at),
  };
}
