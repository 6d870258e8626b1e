/**
 * Conversations kept in memory: bounded in count and idle time, with turns of one session
 * serialised so two requests on the same session never interleave their messages.
 */
import { randomUUID } from 'node:crypto';
import type { BaseMessage } from '@langchain/core/messages';

export interface Session {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  messages: BaseMessage[];
}

export interface SessionStoreOptions {
  /** Oldest idle sessions are dropped beyond this many. */
  maxSessions?: number;
  /** Sessions idle longer than this are dropped. */
  idleTtlMs?: number;
  now?: () => number;
}

export class MemorySessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly maxSessions: number;
  private readonly idleTtlMs: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.maxSessions = options.maxSessions ?? 10_000;
    this.idleTtlMs = options.idleTtlMs ?? 24 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  create(): Session {
    this.evict();
    const at = new Date(this.now());
    const session: Session = { id: randomUUID(), createdAt: at, updatedAt: at, messages: [] };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (session && this.now() - session.updatedAt.getTime() > this.idleTtlMs) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** Appends a completed turn; a session's map entry moves to the end, keeping eviction least-recently-used. */
  append(id: string, messages: readonly BaseMessage[]): void {
    const session = this.sessions.get(id);
    if (!session) return;
    session.messages.push(...messages);
    session.updatedAt = new Date(this.now());
    this.sessions.delete(id);
    this.sessions.set(id, session);
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

  get size(): number {
    return this.sessions.size;
  }

  private evict(): void {
    const cutoff = this.now() - this.idleTtlMs;
    for (const [id, session] of this.sessions) {
      if (session.updatedAt.getTime() < cutoff || this.sessions.size >= this.maxSessions) this.sessions.delete(id);
      else break;
    }
  }
}
