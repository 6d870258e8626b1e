/**
 * The SessionStore (sessionStore.ts) over the SQLite application database: the asynchronous
 * face of SqliteSessionStore. better-sqlite3 is synchronous and each call is short, so the
 * methods simply resolve with the engine's answer; errors (StorageUnavailableError, RangeError)
 * become rejections. Per-session serialisation is the engine's in-process queue: one process
 * owns an APP_DB file.
 */
import type { SkillRecords } from '../skills/sdk/records.ts';
import type { StorageHealth } from './appDatabaseGuard.ts';
import type { SessionPage } from './sessionPaging.ts';
import type { SessionHistory, SessionSummary, TurnInput } from './sessionRecords.ts';
import type { RecentHistory, SessionStore } from './sessionStore.ts';
import { openSessionStore, type Session, type SqliteSessionStore, type SqliteSessionStoreOptions } from './sqliteSessionStore.ts';
import { toChatMessages } from './storedMessages.ts';

/** A session as the interface hands it out: plain data, no live reads behind getters. */
const summary = (session: Session): SessionSummary => ({ id: session.id, title: session.title, createdAt: session.createdAt, updatedAt: session.updatedAt, turns: session.turns });

/** Runs synchronous work as a promise, so a throw becomes a rejection (never a synchronous throw). */
const settle = <T>(work: () => T): Promise<T> => new Promise((resolve) => resolve(work()));

export class SqliteStore implements SessionStore {
  /** @param engine the synchronous store; this object owns it (close() closes it). */
  constructor(readonly engine: SqliteSessionStore) {}

  create(owner?: string): Promise<SessionSummary> {
    return settle(() => summary(this.engine.create(owner)));
  }

  get(id: string, owner?: string): Promise<SessionSummary | undefined> {
    return settle(() => {
      const session = this.engine.get(id, owner);
      return session ? summary(session) : undefined;
    });
  }

  async recentHistory(id: string, owner?: string, limit?: number): Promise<RecentHistory> {
    const { messages, omittedTurns } = await settle(() => this.engine.get(id, owner)?.recentHistory(limit) ?? { messages: [], omittedTurns: 0 });
    return { messages: await toChatMessages(messages), omittedTurns };
  }

  appendTurn(id: string, turn: TurnInput): Promise<boolean> {
    return settle(() => this.engine.appendTurn(id, turn));
  }

  list(options?: { limit?: number; cursor?: string | undefined; owner?: string | undefined }): Promise<SessionPage> {
    return settle(() => this.engine.list(options));
  }

  history(id: string, owner?: string, page?: { limit: number; after?: number }): Promise<SessionHistory | undefined> {
    return settle(() => this.engine.history(id, owner, page));
  }

  delete(id: string, owner?: string): Promise<boolean> {
    return settle(() => this.engine.delete(id, owner));
  }

  runExclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.engine.runExclusive(id, work);
  }

  saveArtifact(sessionId: string, key: string, value: unknown): Promise<boolean> {
    return settle(() => this.engine.saveArtifact(sessionId, key, value));
  }

  artifact<T = unknown>(sessionId: string, key: string): Promise<T | undefined> {
    return settle(() => this.engine.artifact(sessionId, key) as T | undefined);
  }

  skillRecords(namespace: string): SkillRecords {
    return this.engine.skillRecords(namespace);
  }

  storageHealth(): StorageHealth {
    return this.engine.storageHealth();
  }

  close(): Promise<void> {
    return settle(() => this.engine.close());
  }
}

/**
 * Opens the application database named by APP_DB as a SessionStore.
 * @throws ConfigurationError naming APP_DB when the file cannot be opened or has a newer schema.
 * @example
 * const sessions = openSqliteStore({ path: 'data/app.db', ttlMs: 24 * 3_600_000, logger });
 */
export function openSqliteStore(options: SqliteSessionStoreOptions): SqliteStore {
  return new SqliteStore(openSessionStore(options));
}
