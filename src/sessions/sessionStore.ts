/**
 * Where conversations are kept, as the rest of the service sees them: an asynchronous interface
 * in the style of openai-agents-js's `Session` (every method returns a Promise), so a store on
 * another machine can replace the SQLite file without touching the routes or the conversation
 * service. SqliteStore (sqliteStore.ts) keeps them in one process's file; PostgresStore
 * (postgresStore.ts) in PostgreSQL, shared by any number of instances.
 */
import type { BaseMessage } from '@langchain/core/messages';
import type { SkillRecords } from '../skills/sdk/records.ts';
import type { StorageHealth } from './appDatabaseGuard.ts';
import type { SessionPage } from './sessionPaging.ts';
import type { SessionHistory, SessionSummary, TurnInput } from './sessionRecords.ts';

/** The model history of a session: the messages of its last stored turns, in order. */
export interface RecentHistory {
  messages: BaseMessage[];
  /** Older stored turns left out of `messages` (counted, never read). */
  omittedTurns: number;
}

/**
 * Conversations, durable and private to their owner.
 *
 * Owners: every read takes the caller's `owner` (the API key identity, undefined without keys);
 * a session of another owner reads as one that does not exist.
 *
 * Serialisation: `runExclusive(id, work)` runs `work` only after every earlier `runExclusive`
 * on the same session has settled, in arrival order, and no two run at once. /chat reads the
 * history, runs the agent and appends the turn inside it, so turns never interleave. An
 * in-process store keeps a queue per session; a store shared by several processes must give the
 * same guarantee across them, e.g. with a lease (a row or key naming the holder and an expiry,
 * taken before `work` and renewed while it runs, released after; a waiter polls or is notified).
 * A session with work in progress must not be expired.
 *
 * Durability: once `appendTurn` (or `saveArtifact`) resolves, the write survives a crash.
 * @example
 * const session = await store.create(owner);
 * await store.runExclusive(session.id, async () => {
 *   const { messages } = await store.recentHistory(session.id, owner, 50);
 *   await store.appendTurn(session.id, turn);
 * });
 */
export interface SessionStore {
  /** Starts a conversation, stored at once (a retry after a failed first question finds it). */
  create(owner?: string): Promise<SessionSummary>;
  /** The session, or undefined when unknown, deleted, expired or another owner's. */
  get(id: string, owner?: string): Promise<SessionSummary | undefined>;
  /**
   * The messages of the last `limit` stored turns (every turn without one), as openai-agents-js's
   * `getItems(limit)`: how much history a question takes is the caller's choice, not the store's.
   * Empty for a session `get` would not find.
   */
  recentHistory(id: string, owner?: string, limit?: number): Promise<RecentHistory>;
  /** Stores one turn durably. Resolves false when the session no longer exists (nothing stored). */
  appendTurn(id: string, turn: TurnInput): Promise<boolean>;
  /** Sessions, most recently updated first. Rejects with RangeError for a bad limit or cursor. */
  list(options?: { limit?: number; cursor?: string | undefined; owner?: string | undefined }): Promise<SessionPage>;
  /** The session with its turns (a page of them with `page`), or undefined like `get`. */
  history(id: string, owner?: string, page?: { limit: number; after?: number }): Promise<SessionHistory | undefined>;
  /**
   * The durable records of the skill `namespace` (skills/sdk/records.ts), kept in the same
   * application database as the conversations and, like them, seen by every instance sharing it.
   */
  skillRecords(namespace: string): SkillRecords;
  /** Deletes a session and everything in it; false when there was no such (live, owned) session. */
  delete(id: string, owner?: string): Promise<boolean>;
  /** Runs `work` alone for this session, after all earlier work on it (see the contract above). */
  runExclusive<T>(id: string, work: () => Promise<T>): Promise<T>;
  /**
   * Keeps a follow-up value (any JSON) under `key` in the session, replacing an earlier one;
   * deleted with the session. For state tools hand from one turn to the next (a comparison
   * behind a comparison_id) that must outlive the process and be seen by every process.
   * Resolves false when the session no longer exists.
   */
  saveArtifact(sessionId: string, key: string, value: unknown): Promise<boolean>;
  /** The value saved under `key`, or undefined. */
  artifact<T = unknown>(sessionId: string, key: string): Promise<T | undefined>;
  /** The storage as GET /health reports it; must not do I/O (health answers from memory). */
  storageHealth(): StorageHealth;
  /** Releases the storage (timers, connections). */
  close(): Promise<void>;
}
